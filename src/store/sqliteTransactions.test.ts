import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { sql } from 'kysely';
import { type TestDatabase, createTestDatabase } from '../test/databases.js';
import { type Store, openStore } from './db.js';
import { migrateToLatest } from './migrate.js';

/**
 * Every transaction on SQLite begins IMMEDIATE (issue 33, B): two stores on one file stand for two
 * processes (serve and a command). A transaction that reads and then writes holds the write lock from its
 * BEGIN, so the other connection cannot commit between its read and its write (it waits its busy timeout,
 * here 0 so that it answers at once), and the transaction commits. Begun DEFERRED, as Kysely begins it,
 * the other connection's commit went through and the transaction's write failed "database is locked"
 * without waiting: what `tidings import`, `account create` and the reading-list reader met beside serve.
 */

const databases: TestDatabase[] = [];
const stores: Store[] = [];
after(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await Promise.all(databases.map((d) => d.drop()));
});

async function twoConnections(): Promise<[Store, Store]> {
  const database = await createTestDatabase('sqlite');
  databases.push(database);
  const one = openStore(database.url);
  await migrateToLatest(one);
  const other = openStore(database.url);
  await sql`pragma busy_timeout = 0`.execute(other.db);
  stores.push(one, other);
  return [one, other];
}

const account = (name: string) => ({
  name,
  email: null,
  timezone: 'UTC',
  created_at: new Date().toISOString(),
});

test('a transaction that reads, then writes, keeps the write lock from its start and commits', async () => {
  const [one, other] = await twoConnections();
  let between: unknown = null;
  await one.db.transaction().execute(async (trx) => {
    const before = await trx.selectFrom('accounts').select('id').execute();
    assert.deepEqual(before, []);
    try {
      await other.db.insertInto('accounts').values(account('in between')).execute();
    } catch (err) {
      between = err;
    }
    await trx.insertInto('accounts').values(account('after its read')).execute();
  });
  assert.ok(between instanceof Error, 'the other connection committed in the middle of the transaction');
  assert.match(between.message, /database is locked/);
  const names = await other.db.selectFrom('accounts').select('name').execute();
  assert.deepEqual(names, [{ name: 'after its read' }]);
});

test('a transaction that fails rolls back and gives the lock back', async () => {
  const [one, other] = await twoConnections();
  await assert.rejects(
    one.db.transaction().execute(async (trx) => {
      await trx.insertInto('accounts').values(account('rolled back')).execute();
      throw new Error('changed its mind');
    }),
    /changed its mind/,
  );
  await other.db.insertInto('accounts').values(account('after')).execute();
  const names = await one.db.selectFrom('accounts').select('name').execute();
  assert.deepEqual(names, [{ name: 'after' }]);
});
