import assert from 'node:assert/strict';
import { test } from 'node:test';
import { claimDueAccounts } from '../store/accountSchedule.js';
import { deleteAccount } from '../store/accounts.js';
import { transaction } from '../store/precompiled.js';
import {
  TestClock,
  digestsOf,
  dueAt,
  itemsOf,
  queueFeedItem,
  saveUrl,
  setDueAt,
  testDigestDeps,
} from '../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { buildBatch } from './batch.js';
import { buildDigestNow, buildDueDigests } from './build.js';

/**
 * Several accounts built in one transaction (batch.ts): each account's outcome is its own, whatever the
 * others in its batch are doing, and each takes only its own queue's oldest items up to its own maximum.
 */

await describeEachEngine('digest builds in batches', (ctx) => {
  const due = '2026-11-23T07:00:00.000Z';
  const queued = async (accountId: number): Promise<string[]> =>
    (
      await ctx
        .store()
        .db.selectFrom('queue_items')
        .select('url')
        .where('account_id', '=', accountId)
        .orderBy('id')
        .execute()
    ).map((r) => r.url);

  test('one batch: built, deleted mid-build, leased by another, its day taken, empty: each its own outcome', async () => {
    const store = ctx.store();
    const clock = new TestClock('2026-11-23T07:00:30Z');
    const deps = testDigestDeps(store, { now: clock.now });
    const account = async (urls: number): Promise<number> => {
      const { id } = await newAccount(store);
      for (let i = 0; i < urls; i++) await saveUrl(store, id, `https://batch.example/${id}/${i}`);
      await setDueAt(store, id, due);
      return id;
    };
    const capped = await account(5);
    await store.db.updateTable('accounts').set({ digest_max_items: 3 }).where('id', '=', capped).execute();
    const mixed = await account(1);
    // The same link saved by hand and then from a feed is one item, the feed's.
    await queueFeedItem(store, mixed, {
      feedUrl: 'https://batch-feed.example/rss',
      feedTitle: 'Batch feed',
      url: `https://batch.example/${mixed}/0`,
      title: 'From the feed',
      summary: 'What it says.',
      published: '2026-11-22T18:00:00.000Z',
    });
    await queueFeedItem(store, mixed, {
      feedUrl: 'https://batch-feed2.example/rss',
      feedTitle: 'Second feed',
      url: 'https://batch-feed2.example/post',
      title: 'A post',
      summary: 'More.',
      published: '2026-11-22T19:00:00.000Z',
    });
    const gone = await account(2);
    const leased = await account(2);
    const taken = await account(1);
    assert.equal((await buildDigestNow(deps, taken)).status, 'built');
    await saveUrl(store, taken, 'https://batch.example/after-today');
    const empty = await account(0);

    const ids = [capped, mixed, gone, leased, taken, empty];
    const now = clock.now();
    const claimed = await claimDueAccounts(store.db, store.engine, {
      owner: 'batch',
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + 60_000).toISOString(),
      limit: 10,
    });
    assert.deepEqual(claimed.map((a) => a.id).sort(), [...ids].sort());
    // Between the claim and the build: one account deleted, one taken over by another worker.
    assert.equal(await deleteAccount(store.db, gone), true);
    await store.db
      .updateTable('accounts')
      .set({ digest_lease_owner: 'other' })
      .where('id', '=', leased)
      .execute();

    const outcomes = await transaction(store.db, (trx) =>
      buildBatch(trx, deps, ids, { kind: 'scheduled', owner: 'batch' }, now),
    );
    assert.deepEqual(
      outcomes.map((o) => [o.accountId, o.status]),
      [
        [capped, 'built'],
        [mixed, 'built'],
        [gone, 'no_account'],
        [leased, 'lease_lost'],
        [taken, 'exists'],
        [empty, 'empty'],
      ],
    );

    const [cappedDigest] = await digestsOf(store, capped);
    assert.ok(cappedDigest !== undefined);
    assert.deepEqual([cappedDigest.item_count, cappedDigest.remaining], [3, 2]);
    const cappedItems = await itemsOf(store, cappedDigest.id);
    assert.deepEqual(
      cappedItems.map((i) => [i.position, i.url]),
      [0, 1, 2].map((n) => [n, `https://batch.example/${capped}/${n}`]),
    );
    assert.deepEqual(
      await queued(capped),
      [3, 4].map((n) => `https://batch.example/${capped}/${n}`),
    );

    const [mixedDigest] = await digestsOf(store, mixed);
    const mixedItems = await itemsOf(store, mixedDigest?.id ?? 0);
    assert.deepEqual(
      mixedItems.map((i) => [i.url, i.source, i.feed_title]),
      [
        [`https://batch.example/${mixed}/0`, 'api', null],
        ['https://batch-feed2.example/post', 'feed', 'Second feed'],
      ],
    );
    assert.deepEqual([mixedDigest?.saved_count, mixedDigest?.feed_count], [1, 1]);
    assert.deepEqual(await queued(mixed), []);

    assert.equal(
      (await store.db.selectFrom('digests').select('id').where('account_id', '=', gone).execute()).length,
      0,
    );
    assert.deepEqual(await digestsOf(store, leased), []);
    assert.equal((await queued(leased)).length, 2, "another worker's account is left alone");
    const leaseOwner = await store.db
      .selectFrom('accounts')
      .select('digest_lease_owner')
      .where('id', '=', leased)
      .executeTakeFirstOrThrow();
    assert.equal(leaseOwner.digest_lease_owner, 'other');
    assert.equal((await digestsOf(store, taken)).length, 1);
    assert.deepEqual(await queued(taken), ['https://batch.example/after-today']);
    assert.deepEqual(await digestsOf(store, empty), []);
    // Every account the batch handled moves on to tomorrow's slot and is released.
    for (const id of [capped, mixed, taken, empty])
      assert.equal(await dueAt(store, id), '2026-11-24T07:00:00.000Z');
    const released = await store.db
      .selectFrom('accounts')
      .select('id')
      .where('digest_lease_owner', '=', 'batch')
      .execute();
    assert.deepEqual(released, []);
  });

  test('an empty batch writes nothing; a pass of many batches builds every account once', async () => {
    const store = ctx.store();
    const clock = new TestClock('2026-11-24T07:00:30Z');
    const deps = testDigestDeps(store, { now: clock.now });
    assert.deepEqual(
      await transaction(store.db, (trx) => buildBatch(trx, deps, [], { kind: 'now' }, clock.now())),
      [],
    );
    const ids: number[] = [];
    for (let n = 0; n < 7; n++) {
      const { id } = await newAccount(store);
      await saveUrl(store, id, `https://many.example/${id}`);
      await setDueAt(store, id, '2026-11-24T07:00:00.000Z');
      ids.push(id);
    }
    // (The first test's accounts are due again too.)
    const outcomes = await buildDueDigests(deps, { owner: 'many', batch: 3 });
    for (const id of ids) {
      assert.deepEqual(
        outcomes.filter((o) => o.accountId === id).map((o) => o.status),
        ['built'],
      );
    }
    for (const id of ids) {
      const digests = await digestsOf(store, id);
      assert.equal(digests.length, 1);
      assert.deepEqual(
        (await itemsOf(store, digests[0]?.id ?? 0)).map((i) => i.url),
        [`https://many.example/${id}`],
      );
    }
    // Distinct digest ids (and Message-IDs) though the batch drew its ids at once.
    const rows = await store.db.selectFrom('digests').select(['id', 'message_id']).execute();
    assert.equal(new Set(rows.map((r) => r.message_id)).size, rows.length);
  });
});
