import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { ADMIN_URL, createTestDatabase, postgresSkipReason } from '../test/databases.js';
import { openStore } from './db.js';

await test(
  'a PostgreSQL connection dropped mid-transaction fails that transaction, not the process',
  { skip: await postgresSkipReason() },
  async (t) => {
    const database = await createTestDatabase('postgres');
    const store = openStore(database.url);
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    t.after(async () => {
      await admin.end();
      await store.close();
      await database.drop();
    });
    await assert.rejects(
      store.db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        await admin.query('select pg_terminate_backend($1)', [rows[0]?.pid]);
        await sleep(200); // the checked-out client sees its socket close and emits 'error'
        await sql`select 1`.execute(trx);
      }),
    );
    const { rows } = await sql<{ ok: number }>`select 1 as ok`.execute(store.db);
    assert.deepEqual(rows, [{ ok: 1 }], 'the pool goes on with a new connection');
  },
);
