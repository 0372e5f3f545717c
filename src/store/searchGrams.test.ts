import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { operatorAccount } from '../accounts/authorize.js';
import { searchAccount } from '../accounts/search.js';
import { saveUrl } from '../test/digestPipeline.js';
import { ADMIN_URL, createTestDatabase, postgresSkipReason } from '../test/databases.js';
import { openStore } from './db.js';
import { migrateToLatest } from './migrate.js';

/**
 * PostgreSQL without pg_trgm: a role that may not create the extension still migrates (0017 warns and
 * makes no trigram index) and still finds terms of scripts without spaces, by scanning the grams column.
 */
await test(
  '0017_search_ngrams without the right to create pg_trgm: a warning, no index, the same hits [postgres]',
  { skip: await postgresSkipReason() },
  async (t) => {
    const db = await createTestDatabase('postgres');
    const role = `tidings_noext_${randomBytes(4).toString('hex')}`;
    const run = async (connectionString: string, q: string) => {
      const c = new pg.Client({ connectionString });
      await c.connect();
      try {
        await c.query(q);
      } finally {
        await c.end();
      }
    };
    // Not a superuser, and no CREATE on the database: pg_trgm (a trusted extension) needs that.
    await run(db.url, `create role ${role} login`);
    await run(db.url, `grant create on schema public to ${role}`);
    const url = new URL(db.url);
    url.username = role;
    const store = openStore(url.toString());
    t.after(async () => {
      await store.close();
      await db.drop();
      await run(ADMIN_URL, `drop role if exists ${role}`);
    });

    const warnings: string[] = [];
    const onWarning = (w: Error & { code?: string }) => {
      if (w.code === 'TIDINGS_NO_PG_TRGM') warnings.push(w.message);
    };
    process.on('warning', onWarning);
    try {
      await migrateToLatest(store);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /pg_trgm could not be created/);
    const indexes = await sql<{ indexname: string }>`select indexname from pg_indexes
      where tablename = 'search_documents' and indexname = 'search_documents_grams_idx'`.execute(store.db);
    assert.deepEqual(indexes.rows, []);

    const at = new Date().toISOString();
    const account = await store.db
      .insertInto('accounts')
      .values({ name: 'a', email: null, timezone: 'UTC', created_at: at })
      .returning('id')
      .executeTakeFirstOrThrow();
    await saveUrl(store, account.id, 'https://intl.example/ja', '東京タワーの夜景');
    await saveUrl(store, account.id, 'https://intl.example/zh', '北京的天气很好');
    const a = await operatorAccount(store, account.id);
    const count = async (q: string) => (await searchAccount(store, a, q)).total;
    assert.equal(await count('東京タワー'), 1);
    assert.equal(await count('京'), 2);
    assert.equal(await count('天气 -夜景'), 1);
  },
);
