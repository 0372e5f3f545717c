/**
 * The query plans of the wallabag API's list (issue 35, point 6): `npm run bench:clients-plans`. Per engine
 * (BENCH_ENGINES, sqlite,postgres), 10,000 entries of one account as bench:clients fills them, then each
 * order and filter a client asks for, deep in the list: the statements store/readingEntries.ts entryPage
 * runs, printed with SQLite's EXPLAIN QUERY PLAN or PostgreSQL's EXPLAIN ANALYZE (after VACUUM ANALYZE,
 * as autovacuum leaves a table). What to look for: the page's ids read from an index in order (no sort of
 * the list but for `sort=archived`), the count from an index only.
 */
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { createAccountWithKey } from '../src/accounts/service.js';
import { openStore } from '../src/store/db.js';
import { migrateToLatest } from '../src/store/migrate.js';
import { type NewReadingItem, insertReadingItems } from '../src/store/readingList.js';
import { entryPage } from '../src/store/readingEntries.js';
import { tagIdsOf } from '../src/store/readingTags.js';
import type { Database } from '../src/store/schema.js';
import { createTestDatabase } from '../src/test/databases.js';

for (const engine of (process.env.BENCH_ENGINES ?? 'sqlite,postgres').split(',') as (
  'sqlite' | 'postgres'
)[]) {
  const tdb = await createTestDatabase(engine);
  const store = openStore(tdb.url);
  await migrateToLatest(store);
  const { account } = await createAccountWithKey(store, { name: 'p' });
  for (let start = 0; start < 10_000; start += 500) {
    const batch: NewReadingItem[] = [];
    for (let i = start; i < start + 500; i++)
      batch.push({
        url: `https://s${i % 50}.example/a/${i}`,
        urlKey: `https://s${i % 50}.example/a/${i}`,
        title: `A ${i}`,
        state: i % 3 === 0 ? 'archived' : 'unread',
        tags: `\ntopic${i % 20}\n`,
        savedAt: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
        source: 'pocket',
        description: null,
        author: null,
        publishedAt: null,
        html: i % 10 === 0 ? '<p>x</p>' : null,
        text: null,
      });
    await insertReadingItems(store.db, account.id, batch, '2026-11-28T00:00:00.000Z');
  }
  // The tags numbered, as a client's first look at them does, among 2,000 other labels of the account.
  await tagIdsOf(store.db, account.id, [
    ...Array.from({ length: 20 }, (_, i) => `topic${i}`),
    ...Array.from({ length: 2000 }, (_, i) => `label ${i}`),
  ]);
  if (engine === 'postgres') await sql`vacuum analyze`.execute(store.db);
  const captured: { sql: string; params: readonly unknown[] }[] = [];
  const log = (e: { level: string; query: { sql: string; parameters: readonly unknown[] } }) => {
    captured.push({ sql: e.query.sql, params: e.query.parameters });
  };
  let k: Kysely<Database>;
  let pool: pg.Pool | undefined;
  let lite: SQLite.Database | undefined;
  if (engine === 'postgres') {
    pool = new pg.Pool({ connectionString: tdb.url });
    k = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), log });
  } else {
    lite = new SQLite(tdb.url.replace(/^sqlite:(\/\/)?/, ''));
    k = new Kysely<Database>({ dialect: new SqliteDialect({ database: lite }), log });
  }
  const cases = [
    ['created desc, page 50', {}, { sort: 'created', order: 'desc', offset: 4900 }],
    [
      'archive=0 created desc, page 30',
      { state: 'unread' },
      { sort: 'created', order: 'desc', offset: 2900 },
    ],
    [
      'archive=1 created desc, page 10',
      { state: 'archived' },
      { sort: 'created', order: 'desc', offset: 900 },
    ],
    ['updated asc, page 50', {}, { sort: 'updated', order: 'asc', offset: 4900 }],
    ['archive=0 updated asc, page 30', { state: 'unread' }, { sort: 'updated', order: 'asc', offset: 2900 }],
    ['archived desc, page 20', {}, { sort: 'archived', order: 'desc', offset: 1900 }],
    ['starred=1 created desc, page 1', { starred: true }, { sort: 'created', order: 'desc', offset: 0 }],
  ] as const;
  for (const [name, filter, v] of cases) {
    captured.length = 0;
    await entryPage(k, account.id, filter, {
      ...v,
      limit: 100,
      content: true,
      tagNumbers: engine === 'postgres',
    });
    for (const q of captured) {
      console.log(`\n=== ${engine}: ${name}\n${q.sql}`);
      if (pool !== undefined) {
        const r = await pool.query(`explain (analyze, costs off) ${q.sql}`, q.params as unknown[]);
        console.log(r.rows.map((x: Record<string, string>) => x['QUERY PLAN']).join('\n'));
      } else if (lite !== undefined) {
        const r = lite.prepare(`explain query plan ${q.sql}`).all(...(q.params as unknown[])) as {
          detail: string;
        }[];
        console.log(r.map((x) => x.detail).join('\n'));
      }
    }
  }
  await k.destroy();
  await store.close();
  await tdb.drop();
}
