import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { type TestDatabase, createTestDatabase, postgresSkipReason } from '../test/databases.js';
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

  test('a connection tells of a write when it goes back to the pool; a plain read does not', async () => {
    let writes = 0;
    const tracking = trackingPool(pool, () => writes++);
    const run = async (text: string): Promise<number> => {
      const before = writes;
      const client = await tracking.connect();
      await client.query(text, []);
      client.release();
      return writes - before;
    };
    await run('create table t (n int)');
    await run(
      `create function tidings_touch() returns int language sql as 'insert into t values (1) returning n'`,
    );
    assert.equal(await run('select count(*) from t'), 0, 'a plain read');
    assert.equal(await run('  SELECT 1'), 0, 'a plain read, whatever its case');
    assert.equal(await run('insert into t values (2)'), 1, 'an insert');
    assert.equal(await run('with x as (delete from t returning n) select * from x'), 1, 'a CTE that writes');
    assert.equal(await run('select * from tidings_touch()'), 1, "a call of Tidings' own function");
  });
});
