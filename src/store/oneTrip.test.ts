import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { describeEachEngine, newAccount } from '../test/harness.js';

await describeEachEngine('oneTrip', (ctx) => {
  if (ctx.engine === 'sqlite') {
    test('is PostgreSQL only', () => assert.equal(ctx.store().oneTrip, null));
    return;
  }

  test('runs the statements as one transaction: their rows in order, committed when it answers', async () => {
    const store = ctx.store();
    const oneTrip = store.oneTrip;
    assert.ok(oneTrip !== null);
    const { id } = await newAccount(store);
    const results = await oneTrip([
      sql`update accounts set queue_version = ${5} where id = ${id} returning queue_version`.compile(
        store.db,
      ),
      sql`select ${[1, 2, 3]}::int[] as list, ${"it's"}::text as text, ${null}::text as nothing`.compile(
        store.db,
      ),
      sql`select txid_current() = txid_current() as same`.compile(store.db),
      sql`select count(*) as n from accounts where id = ${id} and queue_version = 5`.compile(store.db),
    ]);
    assert.deepEqual(results, [
      [{ queue_version: 5 }],
      [{ list: [1, 2, 3], text: "it's", nothing: null }],
      [{ same: true }],
      // A later statement sees what an earlier one wrote.
      [{ n: 1 }],
    ]);
    // Committed: another connection of the pool sees it at once.
    const row = await store.db
      .selectFrom('accounts')
      .select('queue_version')
      .where('id', '=', id)
      .executeTakeFirst();
    assert.equal(row?.queue_version, 5);
  });

  test('a statement that fails rolls back the ones before it and leaves the pool usable', async () => {
    const store = ctx.store();
    const oneTrip = store.oneTrip;
    assert.ok(oneTrip !== null);
    const { id } = await newAccount(store);
    const version = async (): Promise<number | undefined> =>
      (await store.db.selectFrom('accounts').select('queue_version').where('id', '=', id).executeTakeFirst())
        ?.queue_version;
    const before = await version();
    await assert.rejects(
      oneTrip([
        sql`update accounts set queue_version = 42 where id = ${id}`.compile(store.db),
        sql`select 1 / ${0}::int`.compile(store.db),
        sql`update accounts set queue_version = 43 where id = ${id}`.compile(store.db),
      ]),
      /division by zero/,
    );
    assert.equal(await version(), before);
    // Every connection of the pool still answers (the failed one among them).
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => oneTrip([sql`select ${7}::int as seven`.compile(store.db)])),
    );
    assert.deepEqual(
      answers.map((a) => a[0]),
      answers.map(() => [{ seven: 7 }]),
    );
  });
});
