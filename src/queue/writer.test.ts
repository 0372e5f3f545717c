import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { isTidingsError } from '../errors.js';
import { savedUrlsByAccount } from '../store/queueItems.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { countStatements } from '../test/statements.js';
import { transaction } from '../store/precompiled.js';
import { addSavedUrl } from './add.js';
import { type QueueItem, checkItem, enqueueMany } from './enqueue.js';
import type { Offer } from './plan.js';
import { removeQueuedItem } from './remove.js';
import { pendingSaves } from './writer.js';

const save = (url: string, title?: string): { url: string; title: string | undefined; source: 'api' } => ({
  url,
  title,
  source: 'api',
});

/** What each promise came to: an outcome, or the kind of the TidingsError it failed with. */
async function answers(saves: Promise<string>[]): Promise<string[]> {
  return (await Promise.allSettled(saves)).map((r) =>
    r.status === 'fulfilled' ? r.value : isTidingsError(r.reason) ? r.reason.kind : 'error',
  );
}

/** Resolves false if the promise has not settled after `ms`. */
function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([
    p.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((ok) => setTimeout(() => ok(false), ms)),
  ]);
}

await describeEachEngine('group commit', (ctx) => {
  test('the same URL saved several times in one batch: added once, then deduplicated in order', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    const b = await newAccount(store);
    const limit = { limit: 100 };
    // Saves made in the same turn share a transaction.
    const outcomes = await answers([
      addSavedUrl(store, a.id, save('https://e.com/x', 'First'), limit),
      addSavedUrl(store, b.id, save('https://e.com/x'), limit),
      addSavedUrl(store, a.id, save('https://E.com/x#frag'), limit),
      addSavedUrl(store, a.id, save('https://e.com/x', 'First'), limit),
      addSavedUrl(store, a.id, save('https://e.com/x', 'Second'), limit),
      addSavedUrl(store, a.id, save('https://e.com/y'), limit),
      addSavedUrl(store, b.id, save('https://e.com/x', 'Named'), limit),
    ]);
    assert.deepEqual(outcomes, [
      'added',
      'added',
      'already_queued',
      'already_queued',
      'title_updated',
      'added',
      'title_updated',
    ]);
    assert.deepEqual(await savedUrlsByAccount(store.db, a.id), [
      { url: 'https://e.com/x', title: 'Second' },
      { url: 'https://e.com/y', title: 'https://e.com/y' },
    ]);
    assert.deepEqual(await savedUrlsByAccount(store.db, b.id), [{ url: 'https://e.com/x', title: 'Named' }]);
    // A URL waiting from an earlier batch is deduplicated the same way.
    assert.deepEqual(
      await answers([
        addSavedUrl(store, a.id, save('https://e.com/x', 'Second'), limit),
        addSavedUrl(store, a.id, save('https://e.com/x', 'Third'), limit),
        addSavedUrl(store, a.id, save('https://e.com/x', 'Second'), limit),
      ]),
      ['already_queued', 'title_updated', 'title_updated'],
    );
    assert.equal((await savedUrlsByAccount(store.db, a.id))[0]?.title, 'Second');
  });

  test('the queue limit reached in the middle of a batch refuses only the new URLs after it', async () => {
    const store = ctx.store();
    const { id } = await newAccount(store);
    const limit = { limit: 3 };
    assert.equal(await addSavedUrl(store, id, save('https://e.com/0'), limit), 'added');
    const saves = [
      addSavedUrl(store, id, save('https://e.com/1'), limit),
      addSavedUrl(store, id, save('https://e.com/2'), limit),
      addSavedUrl(store, id, save('https://e.com/3'), limit),
      addSavedUrl(store, id, save('https://e.com/0', 'Renamed'), limit),
      addSavedUrl(store, id, save('https://e.com/1'), limit),
      addSavedUrl(store, id, save('https://e.com/3'), limit),
    ];
    assert.deepEqual(await answers(saves), [
      'added',
      'added',
      'queue_full',
      'title_updated',
      'already_queued',
      'queue_full',
    ]);
    const refused = await saves[2]?.catch((err: unknown) => err);
    assert.match(String(refused), /already holds 3 saved URLs \(the limit is 3\)/);
    assert.deepEqual(
      (await savedUrlsByAccount(store.db, id)).map((r) => r.url),
      ['https://e.com/0', 'https://e.com/1', 'https://e.com/2'],
    );
  });

  test('a queue whose length bound overstates it takes new URLs up to its exact length', async () => {
    const store = ctx.store();
    const { id } = await newAccount(store);
    const limit = { limit: 3 };
    for (const n of [1, 2, 3]) await addSavedUrl(store, id, save(`https://e.com/${n}`), limit);
    // Ids 1..3 with the middle one gone: the bound (max - min + 1) says 3, the queue holds 2.
    const queue = await store.db
      .selectFrom('queue_items')
      .select('id')
      .where('account_id', '=', id)
      .execute();
    assert.equal(await removeQueuedItem(store, id, queue[1]?.id ?? 0), true);
    assert.deepEqual(
      await answers([
        addSavedUrl(store, id, save('https://e.com/4'), limit),
        addSavedUrl(store, id, save('https://e.com/5'), limit),
      ]),
      ['added', 'queue_full'],
    );
  });

  test('a save that fails fails alone; the others of its batch are written', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    const b = await newAccount(store);
    const limit = { limit: 100 };
    const outcomes = await answers([
      addSavedUrl(store, a.id, save('https://e.com/ok-1'), limit),
      // A feed that does not exist: the insert breaks its foreign key and the batch's transaction fails.
      addSavedUrl(
        store,
        b.id,
        { url: 'https://e.com/bad', title: undefined, source: 'feed', feedId: 999_999 },
        limit,
      ),
      addSavedUrl(store, b.id, save('https://e.com/ok-2'), limit),
      addSavedUrl(store, a.id, save('https://e.com/ok-1', 'Again'), limit),
    ]);
    assert.deepEqual(outcomes, ['added', 'error', 'added', 'title_updated']);
    assert.deepEqual(await savedUrlsByAccount(store.db, a.id), [
      { url: 'https://e.com/ok-1', title: 'Again' },
    ]);
    assert.deepEqual(
      (await savedUrlsByAccount(store.db, b.id)).map((r) => r.url),
      ['https://e.com/ok-2'],
    );
    assert.equal(pendingSaves(store), 0);
  });

  test('saves for an account that is gone are refused; the others of the batch are written', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    const limit = { limit: 100 };
    assert.deepEqual(
      await answers([
        addSavedUrl(store, a.id, save('https://e.com/kept'), limit),
        addSavedUrl(store, 987_654, save('https://e.com/lost'), limit),
      ]),
      ['added', 'account_gone'],
    );
  });

  test('one transaction writes several accounts, each locked once and advanced by its offers', async () => {
    const store = ctx.store();
    const [a, b, c] = [await newAccount(store), await newAccount(store), await newAccount(store)];
    const item = (url: string, title?: string): QueueItem => checkItem(save(url, title));
    const versions = async (): Promise<number[]> =>
      (
        await store.db
          .selectFrom('accounts')
          .select('queue_version')
          .where('id', 'in', [a.id, b.id, c.id])
          .orderBy('id')
          .execute()
      ).map((r) => r.queue_version);
    const before = await versions();
    const offer = (url: string, title?: string): Offer => ({ item: item(url, title), limit: 2 });
    const done = await transaction(store.db, (trx) =>
      enqueueMany(trx, store.engine, [
        {
          accountId: c.id,
          offers: [offer('https://e.com/1'), offer('https://e.com/2'), offer('https://e.com/3')],
        },
        { accountId: 987_654, offers: [offer('https://e.com/1')] },
        { accountId: a.id, offers: [offer('https://e.com/1'), offer('https://e.com/1', 'T')] },
      ]),
    );
    const kinds = done.map((d) => d.results.map((r) => ('outcome' in r ? r.outcome : r.error.kind)));
    assert.deepEqual(kinds, [['added', 'added', 'queue_full'], ['account_gone'], ['added', 'title_updated']]);
    assert.deepEqual(
      done.map((d) => d.bound),
      [2, undefined, 1],
    );
    const [va, vb, vc] = before;
    assert.deepEqual(await versions(), [(va ?? 0) + 2, vb, (vc ?? 0) + 3]);
    assert.deepEqual(await savedUrlsByAccount(store.db, a.id), [{ url: 'https://e.com/1', title: 'T' }]);
  });

  test('the next saves of senders answered together share a transaction, though they come turns apart', async () => {
    const store = ctx.store();
    const { id } = await newAccount(store);
    const limit = { limit: 100 };
    const trips = countStatements(store, 'tidings_enqueue_at_once');
    const first = Array.from({ length: 5 }, (_, i) =>
      addSavedUrl(store, id, save(`https://e.com/first/${i}`), limit),
    );
    assert.deepEqual(await answers(first), ['added', 'added', 'added', 'added', 'added']);
    const next: Promise<string>[] = [];
    for (let i = 0; i < 5; i++) {
      // Two turns of the event loop apart, with nothing arriving in between.
      for (let turn = 0; turn < 2; turn++) await new Promise((ok) => setImmediate(ok));
      next.push(addSavedUrl(store, id, save(`https://e.com/next/${i}`), limit));
    }
    assert.deepEqual(await answers(next), ['added', 'added', 'added', 'added', 'added']);
    // On PostgreSQL the first batch took a transaction (no bound known yet), the next one trip.
    trips.stop();
    assert.equal(trips.count, store.engine === 'postgres' ? 1 : 0);
    assert.equal((await savedUrlsByAccount(store.db, id)).length, 10);
  });

  if (ctx.engine !== 'postgres') return;

  test('on PostgreSQL a queue whose lock is held elsewhere delays only its own saves', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    const b = await newAccount(store);
    const limit = { limit: 100 };
    const holder = new pg.Client({ connectionString: ctx.url() });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select id from accounts where id = $1 for update', [a.id]);
      const first = addSavedUrl(store, a.id, save('https://e.com/a-1'), limit);
      assert.equal(await settlesWithin(first, 200), false);
      // A later save for the same account waits behind the first; another account's does not.
      const second = addSavedUrl(store, a.id, save('https://e.com/a-2'), limit);
      const other = addSavedUrl(store, b.id, save('https://e.com/b-1'), limit);
      assert.equal(await settlesWithin(other, 5000), true, 'the other account waited for the held lock');
      assert.equal(await other, 'added');
      assert.deepEqual(
        await answers([
          addSavedUrl(store, b.id, save('https://e.com/b-2'), limit),
          addSavedUrl(store, b.id, save('https://e.com/b-1', 'Named'), limit),
        ]),
        ['added', 'title_updated'],
      );
      assert.equal(await settlesWithin(first, 50), false);
      assert.equal(await settlesWithin(second, 0), false);
      await holder.query('commit');
      assert.deepEqual(await answers([first, second]), ['added', 'added']);
      assert.deepEqual(
        (await savedUrlsByAccount(store.db, a.id)).map((r) => r.url),
        ['https://e.com/a-1', 'https://e.com/a-2'],
      );
    } finally {
      await holder.query('rollback').catch(() => undefined);
      await holder.end();
    }
  });
});
