import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { type TestDatabase, createTestDatabase, postgresSkipReason } from '../test/databases.js';
import type { WriteKind } from './changeFeed.js';
import { trackingPool } from './writeTracking.js';

describe('trackingPool [postgres]', { skip: await postgresSkipReason() }, () => {
  let database: TestDatabase;
  let pool: pg.Pool;
  before(async () => {
    database = await createTestDatabase('postgres');
    pool = new pg.Pool({ connectionString: database.url, max: 1 });
  });
  after(async () => {
    await pool.end();
    await database.drop();
  });

  test('a connection tells of a write, and its kind, when it goes back to the pool; a plain read does not', async () => {
    const writes: WriteKind[] = [];
    const tracking = trackingPool(pool, (kind) => writes.push(kind));
    /** What the connection reported when it went back to the pool after the statements: none, or a kind. */
    const run = async (...texts: string[]): Promise<WriteKind | 'none'> => {
      const before = writes.length;
      const client = await tracking.connect();
      for (const text of texts) await client.query(text, []);
      client.release();
      assert.ok(writes.length - before <= 1, 'one report at most');
      return writes[before] ?? 'none';
    };
    await run('create table t (n int)');
    await run(
      `create function tidings_touch() returns int language sql as 'insert into t values (1) returning n'`,
    );
    // A stand-in with the saves' function's name: only the statement's text decides how it is reported.
    await run(`create function tidings_enqueue_at_once() returns int language sql as 'select 1'`);
    assert.equal(await run('select count(*) from t'), 'none', 'a plain read');
    assert.equal(await run('  SELECT 1'), 'none', 'a plain read, whatever its case');
    assert.equal(await run('insert into t values (2)'), 'any', 'an insert');
    assert.equal(
      await run('with x as (delete from t returning n) select * from x'),
      'any',
      'a CTE that writes',
    );
    assert.equal(await run('select * from tidings_touch()'), 'any', "a call of Tidings' own function");
    assert.equal(await run('select * from tidings_enqueue_at_once()'), 'queue', "the saves' call");
    assert.equal(
      await run('select * from tidings_enqueue_at_once()', 'insert into t values (3)'),
      'any',
      "the saves' call and another write on one connection",
    );
    assert.equal(await run('select 1', 'select * from tidings_enqueue_at_once()'), 'queue');
  });

  test("the saves' call is a named statement, sent unnamed from then on when the server has lost it", async () => {
    const tracking = trackingPool(pool, () => undefined);
    const client = await tracking.connect();
    try {
      await client.query('create table saved (n int)', []);
      await client.query(
        `create function tidings_enqueue_at_once(n int) returns int language sql
           as 'insert into saved values (n) returning n'`,
        [],
      );
      const call = 'select * from tidings_enqueue_at_once($1)';
      const prepared = async (): Promise<string[]> =>
        (
          await client.query<{ statement: string }>('select statement from pg_prepared_statements', [])
        ).rows.map((r) => r.statement);
      assert.deepEqual((await client.query(call, [1])).rows, [{ tidings_enqueue_at_once: 1 }]);
      assert.ok((await prepared()).includes(call), 'prepared on the connection');
      await client.query(call, [2]);
      // What a pooler in transaction mode does to a client: its next statement reaches a server
      // connection that never saw the Parse. The call still runs, once.
      await client.query('deallocate all', []);
      assert.deepEqual((await client.query(call, [3])).rows, [{ tidings_enqueue_at_once: 3 }]);
      await client.query(call, [4]);
      assert.deepEqual(await prepared(), [], 'unnamed from then on');
      const { rows } = await client.query<{ n: number }>('select n from saved order by n', []);
      assert.deepEqual(
        rows.map((r) => r.n),
        [1, 2, 3, 4],
      );
    } finally {
      client.release();
    }
  });
});
