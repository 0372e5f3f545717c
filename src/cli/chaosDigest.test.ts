/**
 * Reliability suite (`npm run test:chaos`): SIGKILL a `tidings worker` in the middle of building the day's
 * digests for many accounts, let its leases run out (as five minutes would), start another: every account
 * gets exactly one digest for the day, and every saved URL is in exactly one digest. Both engines.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../store/db.js';
import { waitFor } from '../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { saveUrl, setDueAt } from '../test/digestPipeline.js';
import { DIST_MAIN, assertBuilt, childEnv } from '../test/process.js';

assertBuilt();

const ACCOUNTS = 300;
const URLS = 3;
const running = new Set<ChildProcess>();
after(() => {
  for (const child of running) child.kill('SIGKILL');
});

function startWorker(databaseUrl: string): ChildProcess {
  const child = spawn(process.execPath, [DIST_MAIN, 'worker'], {
    env: childEnv({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

async function digestCount(store: Store): Promise<number> {
  const row = await store.db
    .selectFrom('digests')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

await describeEachEngine('SIGKILL of a worker mid-digest', (ctx) => {
  const saved = new Map<number, string[]>();

  before(async () => {
    const store = ctx.store();
    const due = new Date(Date.now() - 60_000).toISOString();
    for (let n = 0; n < ACCOUNTS; n += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, ACCOUNTS - n) }, async () => {
          const { id } = await newAccount(store);
          // Loopback addresses: the page reader in the worker refuses them without a request.
          const urls = Array.from({ length: URLS }, (_, i) => `http://127.0.0.1:9/chaos/${id}/${i}`);
          for (const url of urls) await saveUrl(store, id, url);
          await setDueAt(store, id, due);
          saved.set(id, urls);
        }),
      );
    }
  });

  test(`${ACCOUNTS} accounts due: one digest each, every URL in exactly one`, async (t) => {
    const store = ctx.store();
    const first = startWorker(ctx.url());
    // Kill as soon as the worker has built some of the digests, not all.
    await waitFor('the first digests', async () => (await digestCount(store)) >= 5, 30_000);
    first.kill('SIGKILL');
    const [, signal] = (await once(first, 'exit')) as [number | null, NodeJS.Signals | null];
    assert.equal(signal, 'SIGKILL');
    const atKill = await digestCount(store);
    assert.ok(atKill < ACCOUNTS, `the kill came before the end (${atKill} of ${ACCOUNTS} built)`);

    // The dead worker's leases would run out after five minutes: make that time pass.
    const leased = await store.db
      .updateTable('accounts')
      .set({ digest_lease_until: new Date(Date.now() - 1000).toISOString() })
      .where('digest_lease_owner', 'is not', null)
      .executeTakeFirst();
    const second = startWorker(ctx.url());
    await waitFor('every digest', async () => (await digestCount(store)) >= ACCOUNTS, 120_000);
    await sleep(500); // a duplicate would show up now, if the second worker were to build one
    second.kill('SIGTERM');
    await once(second, 'exit');
    t.diagnostic(
      `killed with ${atKill} of ${ACCOUNTS} digests built and ${String(leased.numUpdatedRows)} leases held`,
    );

    const digests = await store.db.selectFrom('digests').select(['id', 'account_id', 'local_date']).execute();
    const perAccount = new Map<number, number>();
    for (const d of digests) perAccount.set(d.account_id, (perAccount.get(d.account_id) ?? 0) + 1);
    const wrong = [...saved.keys()].filter((id) => perAccount.get(id) !== 1);
    assert.deepEqual(wrong, [], 'accounts without exactly one digest');

    const delivered = new Map<number, string[]>();
    for (const d of digests) {
      const items = await store.db
        .selectFrom('digest_items')
        .select('url')
        .where('digest_id', '=', d.id)
        .execute();
      delivered.set(d.account_id, [...(delivered.get(d.account_id) ?? []), ...items.map((i) => i.url)]);
    }
    for (const [id, urls] of saved)
      assert.deepEqual(delivered.get(id)?.sort(), [...urls].sort(), `account ${id}`);
    const left = await store.db
      .selectFrom('queue_items')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .executeTakeFirstOrThrow();
    assert.equal(Number(left.n), 0, 'every queue emptied into its digest');
  });
});
