import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Store, openStore } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';
import { type TestDatabase, createTestDatabase, postgresSkipReason } from '../test/databases.js';
import { digestsOf, itemsOf, saveUrl, setDueAt, testDigestDeps } from '../test/digestPipeline.js';
import { newAccount } from '../test/harness.js';
import { buildDigestNow, buildDueDigests } from './build.js';

/**
 * Two builders on one PostgreSQL database (two stores, each with its own pool, as two instances have),
 * with leases that run out at once so that both may claim the same accounts, a forced build and saves
 * arriving throughout: every saved URL ends in exactly one place (one digest, or still the queue), and
 * every account gets one digest for the day.
 */
const pgSkip = await postgresSkipReason();
await describe('two digest builders on one PostgreSQL database', { skip: pgSkip }, () => {
  const ACCOUNTS = 12;
  const ITEMS = 15;
  let db: TestDatabase;
  let stores: Store[];

  before(async () => {
    db = await createTestDatabase('postgres');
    stores = [openStore(db.url), openStore(db.url), openStore(db.url)];
    await migrateToLatest(stores[0] as Store);
  });
  after(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await db.drop();
  });

  test('each item lands in exactly one digest; one digest per account and day', async () => {
    const [a, b, writer] = stores as [Store, Store, Store];
    const due = '2026-11-23T07:00:00.000Z';
    // One clock for all, a millisecond further at every reading: leases of 0 ms run out at once.
    let tick = Date.parse('2026-11-23T12:00:00Z');
    const now = (): Date => new Date(tick++);
    const accounts: number[] = [];
    const saved = new Map<number, string[]>();
    for (let n = 0; n < ACCOUNTS; n++) {
      const { id } = await newAccount(a);
      await setDueAt(a, id, due);
      accounts.push(id);
      saved.set(id, []);
      for (let i = 0; i < ITEMS; i++) {
        const url = `https://race.example/${id}/before/${i}`;
        await saveUrl(a, id, url);
        saved.get(id)?.push(url);
      }
    }
    // Each builder may claim what the other has just claimed.
    const depsA = testDigestDeps(a, { leaseMs: 0, now });
    const depsB = testDigestDeps(b, { leaseMs: 0, now });
    const writing = { on: true };
    const saves = (async () => {
      for (let i = 0; writing.on; i++) {
        const id = accounts[i % ACCOUNTS] ?? 0;
        const url = `https://race.example/${id}/during/${i}`;
        await saveUrl(writer, id, url);
        saved.get(id)?.push(url);
      }
    })();
    const forcedId = accounts[3] ?? 0;
    const [byA, byB, forced] = await Promise.all([
      buildDueDigests(depsA, { owner: 'builder-a', batch: 1 }),
      buildDueDigests(depsB, { owner: 'builder-b', batch: 1 }),
      buildDigestNow(testDigestDeps(writer, { now }), forcedId),
    ]);
    writing.on = false;
    await saves;
    // With leases this short, both builders can lose the same account (each pass then leaves it to a later
    // one, build.ts): the next pass takes it. Nothing is left after that.
    const later = await buildDueDigests(depsA, { owner: 'builder-a' });
    assert.deepEqual(await buildDueDigests(depsB, { owner: 'builder-b' }), []);

    const all = [...byA, ...byB, forced, ...later];
    const built = all.filter((o) => o.status === 'built');
    assert.equal(built.length, ACCOUNTS, JSON.stringify(all.map((o) => o.status)));
    assert.ok(
      byA.some((o) => o.status === 'built') && byB.some((o) => o.status === 'built'),
      'both builders built',
    );

    for (const id of accounts) {
      const digests = await digestsOf(a, id);
      assert.equal(digests.length, 1, `account ${id}: one digest`);
      const digest = digests[0];
      assert.ok(digest !== undefined);
      const inDigest = (await itemsOf(a, digest.id)).map((i) => i.url);
      const queued = (
        await a.db
          .selectFrom('queue_items')
          .select('url')
          .where('account_id', '=', id)
          .orderBy('id')
          .execute()
      ).map((r) => r.url);
      assert.equal(digest.item_count, inDigest.length);
      assert.equal(digest.remaining, 0, 'max items (100) was not reached');
      const everywhere = [...inDigest, ...queued];
      assert.equal(new Set(everywhere).size, everywhere.length, `account ${id}: no URL in two places`);
      assert.deepEqual(everywhere.sort(), [...(saved.get(id) ?? [])].sort(), `account ${id}: none lost`);
      for (let i = 0; i < ITEMS; i++) {
        assert.ok(inDigest.includes(`https://race.example/${id}/before/${i}`), 'saved before: in the digest');
      }
    }
    const leased = await a.db
      .selectFrom('accounts')
      .select('id')
      .where('digest_lease_owner', 'is not', null)
      .execute();
    assert.deepEqual(leased, []);
  });
});
