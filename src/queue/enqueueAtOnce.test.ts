import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import pg from 'pg';
import { lockQueue } from '../store/accounts.js';
import type { Store } from '../store/db.js';
import { transaction } from '../store/precompiled.js';
import { savedUrlsByAccount } from '../store/queueItems.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { countStatements } from '../test/statements.js';
import { LengthBounds } from './bounds.js';
import { type Enqueued, checkItem, enqueueMany, enqueueManyAtOnce } from './enqueue.js';
import type { Offer } from './plan.js';

const offer = (url: string, title?: string, limit = 100): Offer => ({
  item: checkItem({ url, title, source: 'api' }),
  limit,
});

const kinds = (done: Enqueued): string[] =>
  done.results.map((r) => ('outcome' in r ? r.outcome : r.error.kind));

/** The account's queue_version. */
async function versionOf(store: Store, accountId: number): Promise<number> {
  const row = await store.db
    .selectFrom('accounts')
    .select('queue_version')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return row.queue_version;
}

/** Counts the store's one-statement save transactions (calls of migration 0023's function) until t ends. */
function countTrips(t: TestContext, store: Store): { count: number } {
  const counter = countStatements(store, 'tidings_enqueue_at_once');
  t.after(() => counter.stop());
  return counter;
}

/** enqueueMany in a transaction of its own, the bounds recorded as the writer records them. */
async function inTransaction(
  store: Store,
  accountId: number,
  offers: Offer[],
  bounds: LengthBounds,
): Promise<Enqueued> {
  const [done] = await transaction(store.db, (trx) =>
    enqueueMany(trx, store.engine, [{ accountId, offers }], bounds),
  );
  assert.ok(done !== undefined);
  remember(bounds, accountId, done);
  return done;
}

function remember(bounds: LengthBounds, accountId: number, done: Enqueued): void {
  if (done.version !== null && done.bound !== undefined) bounds.set(accountId, done.version, done.bound);
}

await describeEachEngine('enqueueManyAtOnce', (ctx) => {
  if (ctx.engine === 'sqlite') {
    test('is for PostgreSQL only: on SQLite statements cost no round trip', async () => {
      const store = ctx.store();
      const { id } = await newAccount(store);
      const bounds = new LengthBounds();
      await inTransaction(store, id, [offer('https://e.com/1')], bounds);
      assert.equal(
        await enqueueManyAtOnce(store, [{ accountId: id, offers: [offer('https://e.com/2')] }], bounds),
        null,
      );
    });
    return;
  }

  test('not before the queue bound is known; then new URLs in one trip, deduplicated within the batch', async (t) => {
    const store = ctx.store();
    const count = countTrips(t, store);
    const { id } = await newAccount(store);
    const bounds = new LengthBounds();
    assert.equal(
      await enqueueManyAtOnce(store, [{ accountId: id, offers: [offer('https://e.com/0')] }], bounds),
      null,
    );
    assert.equal(count.count, 0);
    await inTransaction(store, id, [offer('https://e.com/0')], bounds);
    const before = await versionOf(store, id);
    const offers = [
      offer('https://e.com/1', 'One'),
      offer('https://e.com/2'),
      offer('https://E.com/1#again'),
      offer('https://e.com/1', 'One'),
      offer('https://e.com/1', 'Uno'),
      offer('https://e.com/0'),
    ];
    const [done] = (await enqueueManyAtOnce(store, [{ accountId: id, offers }], bounds)) ?? [];
    assert.ok(done !== undefined, 'the one-trip path was taken');
    assert.equal(count.count, 1);
    assert.deepEqual(kinds(done), [
      'added',
      'added',
      'already_queued',
      'already_queued',
      'title_updated',
      'already_queued',
    ]);
    assert.equal(done.version, before + offers.length);
    assert.equal(done.bound, 3);
    assert.equal(await versionOf(store, id), before + offers.length);
    assert.deepEqual(await savedUrlsByAccount(store.db, id), [
      { url: 'https://e.com/0', title: 'https://e.com/0' },
      { url: 'https://e.com/1', title: 'Uno' },
      { url: 'https://e.com/2', title: 'https://e.com/2' },
    ]);
  });

  test('a URL waiting from an earlier batch, saved again with another title, is renamed by a transaction', async () => {
    const store = ctx.store();
    const { id } = await newAccount(store);
    const bounds = new LengthBounds();
    await inTransaction(store, id, [offer('https://e.com/a', 'A')], bounds);
    // Saved again untitled, or with its own title: deduplicated in one trip.
    const [same] =
      (await enqueueManyAtOnce(store, [{ accountId: id, offers: [offer('https://e.com/a')] }], bounds)) ?? [];
    assert.ok(same !== undefined);
    assert.deepEqual(kinds(same), ['already_queued']);
    remember(bounds, id, same);
    const offers = [offer('https://e.com/b'), offer('https://e.com/a', 'Renamed')];
    const before = await versionOf(store, id);
    // A save that names a waiting URL: the call writes nothing, not even the version...
    assert.equal(await enqueueManyAtOnce(store, [{ accountId: id, offers }], bounds), null);
    assert.equal(await versionOf(store, id), before);
    assert.deepEqual(await savedUrlsByAccount(store.db, id), [{ url: 'https://e.com/a', title: 'A' }]);
    // ...and the transaction that follows gives the answers.
    assert.deepEqual(kinds(await inTransaction(store, id, offers, bounds)), ['added', 'title_updated']);
    assert.deepEqual(await savedUrlsByAccount(store.db, id), [
      { url: 'https://e.com/a', title: 'Renamed' },
      { url: 'https://e.com/b', title: 'https://e.com/b' },
    ]);
  });

  test('not when the bound says the limit could be reached: the transaction refuses exactly', async (t) => {
    const store = ctx.store();
    const count = countTrips(t, store);
    const { id } = await newAccount(store);
    const bounds = new LengthBounds();
    await inTransaction(store, id, [offer('https://e.com/1', undefined, 3)], bounds);
    const offers = [offer('https://e.com/2', undefined, 3), offer('https://e.com/3', undefined, 3)];
    const [fits] = (await enqueueManyAtOnce(store, [{ accountId: id, offers }], bounds)) ?? [];
    assert.ok(fits !== undefined);
    remember(bounds, id, fits);
    const over = [offer('https://e.com/4', undefined, 3), offer('https://e.com/1', undefined, 3)];
    assert.equal(await enqueueManyAtOnce(store, [{ accountId: id, offers: over }], bounds), null);
    assert.equal(count.count, 1, 'no trip when the bound allows a refusal');
    assert.deepEqual(kinds(await inTransaction(store, id, over, bounds)), ['queue_full', 'already_queued']);
    assert.equal((await savedUrlsByAccount(store.db, id)).length, 3);
  });

  test('several accounts in one call: each queue locked, advanced and written', async (t) => {
    const store = ctx.store();
    const count = countTrips(t, store);
    const a = await newAccount(store);
    const b = await newAccount(store);
    const bounds = new LengthBounds();
    await inTransaction(store, a.id, [offer('https://e.com/1')], bounds);
    await inTransaction(store, b.id, [offer('https://e.com/1')], bounds);
    const [va, vb] = [await versionOf(store, a.id), await versionOf(store, b.id)];
    const both = [
      { accountId: a.id, offers: [offer('https://e.com/2'), offer('https://e.com/1')] },
      { accountId: b.id, offers: [offer('https://e.com/3', 'Three')] },
    ];
    const done = await enqueueManyAtOnce(store, both, bounds);
    assert.ok(done !== null);
    assert.equal(count.count, 1);
    assert.deepEqual(done.map(kinds), [['added', 'already_queued'], ['added']]);
    assert.deepEqual(
      done.map((d) => d.version),
      [va + 2, vb + 1],
    );
    assert.deepEqual([await versionOf(store, a.id), await versionOf(store, b.id)], [va + 2, vb + 1]);
    assert.deepEqual(
      (await savedUrlsByAccount(store.db, a.id)).map((r) => r.url),
      ['https://e.com/1', 'https://e.com/2'],
    );
    assert.deepEqual(await savedUrlsByAccount(store.db, b.id), [
      { url: 'https://e.com/1', title: 'https://e.com/1' },
      { url: 'https://e.com/3', title: 'Three' },
    ]);
  });

  test('writes nothing when the queue changed elsewhere since its bound, or the account is gone', async () => {
    const store = ctx.store();
    const a = await newAccount(store);
    const b = await newAccount(store);
    const bounds = new LengthBounds();
    await inTransaction(store, a.id, [offer('https://e.com/1')], bounds);
    await inTransaction(store, b.id, [offer('https://e.com/1')], bounds);
    // Another writer (a digest build, another instance) advanced a's version.
    await transaction(store.db, (trx) => lockQueue(trx, a.id));
    const both = [
      { accountId: a.id, offers: [offer('https://e.com/2')] },
      { accountId: b.id, offers: [offer('https://e.com/2')] },
    ];
    assert.equal(await enqueueManyAtOnce(store, both, bounds), null);
    assert.deepEqual(
      (await savedUrlsByAccount(store.db, b.id)).map((r) => r.url),
      ['https://e.com/1'],
      'nothing written for the other account either',
    );
    await store.db.deleteFrom('accounts').where('id', '=', b.id).execute();
    const gone = [{ accountId: b.id, offers: [offer('https://e.com/3')] }];
    assert.equal(await enqueueManyAtOnce(store, gone, bounds), null);
  });

  test('reads what was waiting after taking the lock: what the lock holder committed is deduplicated', async () => {
    const store = ctx.store();
    const { id } = await newAccount(store);
    const bounds = new LengthBounds();
    await inTransaction(store, id, [offer('https://e.com/1')], bounds);
    const holder = new pg.Client({ connectionString: ctx.url() });
    await holder.connect();
    try {
      await holder.query('begin');
      // A writer that holds the lock (without advancing the version, to reach the one-trip path).
      await holder.query('select id from accounts where id = $1 for update', [id]);
      const saving = enqueueManyAtOnce(
        store,
        [{ accountId: id, offers: [offer('https://e.com/2'), offer('https://e.com/3')] }],
        bounds,
      );
      await new Promise((ok) => setTimeout(ok, 100));
      await holder.query(
        `insert into queue_items (account_id, url, url_key, title, source, created_at, updated_at)
         values ($1, 'https://e.com/2', $2, 'Held', 'api', 'x', 'x')`,
        [id, checkItem({ url: 'https://e.com/2', title: undefined, source: 'api' }).urlKey],
      );
      await holder.query('commit');
      const [done] = (await saving) ?? [];
      assert.ok(done !== undefined);
      assert.deepEqual(kinds(done), ['already_queued', 'added']);
      assert.deepEqual(
        (await savedUrlsByAccount(store.db, id)).map((r) => r.title),
        ['https://e.com/1', 'Held', 'https://e.com/3'],
      );
    } finally {
      await holder.query('rollback').catch(() => undefined);
      await holder.end();
    }
  });

  test('a statement that fails rolls the call back, version included', async () => {
    const store = ctx.store();
    const { id } = await newAccount(store);
    const bounds = new LengthBounds();
    await inTransaction(store, id, [offer('https://e.com/1')], bounds);
    const before = await versionOf(store, id);
    const bad: Offer = {
      item: checkItem({ url: 'https://e.com/bad', title: undefined, source: 'feed', feedId: 999_999 }),
      limit: 100,
    };
    await assert.rejects(
      enqueueManyAtOnce(store, [{ accountId: id, offers: [offer('https://e.com/2'), bad] }], bounds),
    );
    assert.equal(await versionOf(store, id), before);
    assert.equal((await savedUrlsByAccount(store.db, id)).length, 1);
    // The pool's connection is still good.
    const [done] =
      (await enqueueManyAtOnce(store, [{ accountId: id, offers: [offer('https://e.com/2')] }], bounds)) ?? [];
    assert.deepEqual(done === undefined ? null : kinds(done), ['added']);
  });
});
