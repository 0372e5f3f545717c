import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { SearchQuery } from '../lib/searchQuery.js';
import type { Engine } from './db.js';
import type { Database } from './schema.js';
import { type SearchPage, searchHere } from './searchRead.js';
import { searchInThread, sqliteFileOf } from './searchThread.js';

export { INDEXED_TEXT_CHARS, RANKED_HITS, type SearchPage, type SearchRow } from './searchRead.js';

/**
 * Searching the queue and digest items of one account (migration 0015's triggers keep the index in step
 * with changes; new items get their documents at the account's next search, indexNewDigestItems and
 * indexNewQueueItems below). The statements are searchRead.ts's.
 */

/**
 * One page of the account's hits for `query`. On an SQLite file the statements run in a thread of their
 * own, on a read-only connection (searchThread.ts): better-sqlite3 is synchronous, and a query over many
 * hits (10,000 items each holding every one of 16 one-character terms: 0.2-0.6 s) would otherwise stop
 * the event loop, every other request with it, for as long. PostgreSQL runs them on the pool.
 */
export async function searchItems(
  db: Kysely<Database>,
  engine: Engine,
  accountId: number,
  query: SearchQuery,
  page: { limit: number; offset: number; rankedHits?: number },
): Promise<SearchPage> {
  const file = engine === 'sqlite' ? await sqliteFileOf(db) : null;
  if (file === null) return searchHere(db, engine, accountId, query, page);
  return searchInThread(db, file, { accountId, query, page });
}

/**
 * Brings the account's queue documents in step before it searches: the queue items saved since its last
 * search get theirs, and a document whose item has gone meanwhile goes too. The save does not index (a
 * trigger on queue_items made an API save three times dearer: 18 → 54–73 µs a save, and bench:api's POST
 * 9,118 → 4,788 req/s); new digest items are indexNewDigestItems's, and everything else (pages read, items
 * changed or deleted) is kept in step by the triggers of migration 0015. With `batch` (SQLite: see
 * indexNewItems), that many items a statement, the event loop let go between. Returns how many documents
 * were added.
 */
export async function indexNewQueueItems(
  db: Kysely<Database>,
  accountId: number,
  batch?: number,
): Promise<number> {
  // Read by kind (the queue documents of every account: a day's saves), not by account (every digest
  // item it was ever sent: 6 ms of each search over 100,000 of them in bench:search).
  await sql`DELETE FROM search_documents WHERE kind = 'queue' AND +account_id = ${accountId}
    AND NOT EXISTS (SELECT 1 FROM queue_items q WHERE q.id = search_documents.item_id)`.execute(db);
  const insert = (which: RawBuilder<unknown>) =>
    sql`INSERT INTO search_documents (account_id, kind, item_id, digest_id, page_id, created_at)
    SELECT q.account_id, 'queue', q.id, NULL, q.page_id, q.created_at FROM queue_items q
    WHERE q.account_id = ${accountId} ${which}
      AND NOT EXISTS (SELECT 1 FROM search_documents d WHERE d.kind = 'queue' AND d.item_id = q.id)
    ORDER BY q.id
    ON CONFLICT (kind, item_id) DO NOTHING`.execute(db);
  if (batch === undefined) return Number((await insert(sql``)).numAffectedRows ?? 0);
  let added = 0;
  for (let after = 0; ;) {
    const next = await sql<{ id: number }>`SELECT q.id FROM queue_items q
      WHERE q.account_id = ${accountId} AND q.id > ${after}
        AND NOT EXISTS (SELECT 1 FROM search_documents d WHERE d.kind = 'queue' AND d.item_id = q.id)
      ORDER BY q.id LIMIT ${batch}`.execute(db);
    const ids = next.rows.map((r) => r.id);
    if (ids.length > 0)
      added += Number((await insert(sql`AND q.id IN (${sql.join(ids)})`)).numAffectedRows ?? 0);
    if (ids.length < batch) return added;
    after = ids[ids.length - 1] ?? after;
    await turn();
  }
}

/**
 * Brings the account's digest documents in step before it searches: the items of its digests built since
 * its last search get theirs (a build writes nothing for search: migration 0022), the digests in id order
 * and each digest's items in item order, as the build's trigger gave them. Each digest is then marked
 * indexed; it was named by id, so that a digest built meanwhile waits for the next search. Running twice
 * at once is harmless (a document that exists is skipped). With `batch` (SQLite), each digest's items that
 * many a statement, the event loop let go between. Returns how many documents were added.
 */
export async function indexNewDigestItems(
  db: Kysely<Database>,
  engine: Engine,
  accountId: number,
  batch?: number,
): Promise<number> {
  // The literal 0 (not a parameter) is what lets either engine read the partial index of 0022.
  const pending = await sql<{ id: number }>`SELECT id FROM digests
    WHERE account_id = ${accountId} AND search_indexed = 0 ORDER BY id`.execute(db);
  const ids = pending.rows.map((r) => r.id);
  if (ids.length === 0) return 0;
  let added = 0;
  if (engine === 'postgres') {
    // A tidings_ function: store/writeTracking.ts counts its call as the write it is.
    const { rows } = await sql<{ n: number }>`SELECT tidings_index_digests(${ids}::int[]) AS n`.execute(db);
    added = rows[0]?.n ?? 0;
  } else {
    // 0015's and 0017's triggers on search_documents fill the FTS5 tables from each inserted row.
    const insert = (which: RawBuilder<unknown>) =>
      sql`INSERT INTO search_documents (account_id, kind, item_id, digest_id, page_id, created_at)
      SELECT d.account_id, 'digest', i.id, i.digest_id, i.page_id, d.created_at
      FROM digests d JOIN digest_items i ON i.digest_id = d.id
      WHERE ${which}
      ORDER BY i.id
      ON CONFLICT (kind, item_id) DO NOTHING`.execute(db);
    if (batch === undefined) {
      added = Number((await insert(sql`d.id IN (${sql.join(ids)})`)).numAffectedRows ?? 0);
    } else {
      for (const digestId of ids) {
        for (let after = 0; ;) {
          const next = await sql<{ id: number }>`SELECT id FROM digest_items
            WHERE digest_id = ${digestId} AND id > ${after} ORDER BY id LIMIT ${batch}`.execute(db);
          const items = next.rows.map((r) => r.id);
          if (items.length > 0) {
            const which = sql`d.id = ${digestId} AND i.id IN (${sql.join(items)})`;
            added += Number((await insert(which)).numAffectedRows ?? 0);
          }
          if (items.length < batch) break;
          after = items[items.length - 1] ?? after;
          await turn();
        }
      }
    }
  }
  await db.updateTable('digests').set({ search_indexed: 1 }).where('id', 'in', ids).execute();
  return added;
}

/**
 * The items of an SQLite account indexed a batch at a time, the event loop let go between batches: better-
 * sqlite3 is synchronous, and indexing costs about 1.1 ms an item (docs/search.md), so the first search
 * after 10,000 saves held every other request for about a second in one statement.
 */
export const SQLITE_INDEX_BATCH = 20;

/**
 * Brings the account's documents in step before it searches: its new digests' items first (they were
 * queued before what is queued now: documents are newest last), then its new queue items. On SQLite a
 * batch of SQLITE_INDEX_BATCH items at a time; on PostgreSQL one statement each.
 */
export async function indexNewItems(db: Kysely<Database>, engine: Engine, accountId: number): Promise<void> {
  const batch = engine === 'sqlite' ? SQLITE_INDEX_BATCH : undefined;
  await indexNewDigestItems(db, engine, accountId, batch);
  await indexNewQueueItems(db, accountId, batch);
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The account's searchable documents: a plain indexed count, the baseline the benchmark compares with. */
export async function searchDocumentCount(db: Kysely<Database>, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('search_documents')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row?.n ?? 0;
}
