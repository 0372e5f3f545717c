import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachEngine } from '../test/harness.js';
import { lockQueue } from './accounts.js';
import { exclusive, transaction } from './precompiled.js';
import { queueLength } from './queueItems.js';

await describeEachEngine('precompiled queries and transactions', (ctx) => {
  const newAccountId = async (): Promise<number> =>
    (
      await ctx
        .store()
        .db.insertInto('accounts')
        .values({ name: 'p', email: null, timezone: 'UTC', created_at: new Date().toISOString() })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;

  const nameOf = async (accountId: number): Promise<string | undefined> =>
    (
      await ctx
        .store()
        .db.selectFrom('accounts')
        .select('name')
        .where('id', '=', accountId)
        .executeTakeFirst()
    )?.name;

  const version = async (accountId: number): Promise<number> =>
    (
      await ctx
        .store()
        .db.selectFrom('accounts')
        .select('queue_version')
        .where('id', '=', accountId)
        .executeTakeFirstOrThrow()
    ).queue_version;

  test('a transaction commits precompiled and built queries together', async () => {
    const id = await newAccountId();
    const result = await transaction(ctx.store().db, async (trx) => {
      const bumped = await lockQueue(trx, id); // precompiled: runs directly on SQLite
      await trx.updateTable('accounts').set({ name: 'renamed' }).where('id', '=', id).execute(); // built
      return bumped;
    });
    assert.equal(result, 1);
    assert.equal(await version(id), 1);
    assert.equal(await nameOf(id), 'renamed');
  });

  test('a transaction that throws leaves nothing behind, and the connection works afterwards', async () => {
    const id = await newAccountId();
    await assert.rejects(
      transaction(ctx.store().db, async (trx) => {
        await lockQueue(trx, id);
        await trx.updateTable('accounts').set({ name: 'lost' }).where('id', '=', id).execute();
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.equal(await version(id), 0);
    assert.equal(await nameOf(id), 'p');
    assert.equal(await lockQueue(ctx.store().db, id), 1);
  });

  test('a failing statement inside rolls the whole transaction back', async () => {
    const id = await newAccountId();
    await assert.rejects(
      transaction(ctx.store().db, async (trx) => {
        await lockQueue(trx, id);
        // Violates the foreign key to accounts.
        await trx
          .insertInto('api_keys')
          .values({ account_id: 999_999, name: 'k', prefix: 'x', key_hash: 'y', created_at: 'now' })
          .execute();
      }),
    );
    assert.equal(await version(id), 0);
  });

  // SQLite has one connection per process, shared by every request: its transactions must run one at a
  // time. (On PostgreSQL each has a connection of its own and row locks order them.)
  if (ctx.engine !== 'sqlite') return;
  test('on SQLite, transactions and exclusive reads started together do not interleave', async () => {
    const id = await newAccountId();
    const seen: number[] = [];
    await Promise.all([
      ...Array.from({ length: 20 }, () =>
        transaction(ctx.store().db, async (trx) => {
          const before = (
            await trx
              .selectFrom('accounts')
              .select('queue_version')
              .where('id', '=', id)
              .executeTakeFirstOrThrow()
          ).queue_version;
          const after = await lockQueue(trx, id);
          assert.equal(after, before + 1); // no other transaction's bump in between
        }),
      ),
      ...Array.from({ length: 20 }, () =>
        exclusive(ctx.store().db, async (db) => {
          seen.push(await queueLength(db, id));
        }),
      ),
    ]);
    assert.equal(await version(id), 20);
    assert.deepEqual(seen, Array<number>(20).fill(0));
  });
});
