import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './index.js';
import { CLASS, TEXT, TSV } from './0021_digest_search_batch.js';

/**
 * A digest's items indexed for search at the account's next search instead of in the build (issue 14: the
 * search documents were most of a build's cost on PostgreSQL, 0.09 ms of the server an item even as 0021
 * made them, for 10,000 digests of 50 items). Queue items have been indexed that way since 0015
 * (store/searchDocuments.ts indexNewQueueItems); an account that never searches never pays for either.
 *
 * - digests.search_indexed: 1 once the digest's items have their documents, 0 until then (a new digest:
 *   the build writes nothing for search). Digests already there have theirs (0015's and 0021's triggers):
 *   1. A partial index finds an account's digests still to index, which every search asks first.
 * - The INSERT triggers of digest_items go (SQLite 0015's row trigger, PostgreSQL 0021's statement
 *   trigger); the UPDATE and DELETE ones stay: they touch or delete a document where there is one.
 * - PostgreSQL: tidings_index_digests(digest ids) inserts the documents of those digests' items, tsvector
 *   and grams computed in that statement as 0021's trigger did (the same expressions), skipping those that
 *   exist; returns how many it inserted. On SQLite the caller inserts the rows and 0015's and 0017's
 *   triggers on search_documents fill the FTS5 tables, as they did.
 */
export async function up(db: Kysely<unknown>, { engine }: MigrationContext): Promise<void> {
  await db.schema
    .alterTable('digests')
    .addColumn('search_indexed', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE digests SET search_indexed = 1`.execute(db);
  await sql`CREATE INDEX digests_search_pending_idx ON digests (account_id) WHERE search_indexed = 0`.execute(
    db,
  );
  if (engine === 'sqlite') {
    await sql`DROP TRIGGER search_digest_ai`.execute(db);
    return;
  }
  await sql`DROP TRIGGER search_digest_items_insert ON digest_items`.execute(db);
  await sql`DROP FUNCTION search_digest_items_insert()`.execute(db);
  await sql`CREATE FUNCTION tidings_index_digests(digest_ids integer[]) RETURNS integer LANGUAGE sql AS $$
    WITH added AS (
      INSERT INTO search_documents (account_id, kind, item_id, digest_id, page_id, created_at, tsv, grams)
      SELECT d.account_id, 'digest', i.id, i.digest_id, i.page_id, d.created_at, ${sql.raw(TSV)},
        CASE WHEN ${sql.raw(TEXT)} ~ '[${sql.raw(CLASS)}]' THEN ${sql.raw(TEXT)} END
      FROM digests d
      JOIN digest_items i ON i.digest_id = d.id
      -- Each item's texts by its id, not the view joined as a whole (0021).
      CROSS JOIN LATERAL (SELECT * FROM search_texts t WHERE t.kind = 'digest' AND t.item_id = i.id OFFSET 0) t
      WHERE d.id = ANY (digest_ids)
      ORDER BY i.id
      ON CONFLICT (kind, item_id) DO NOTHING
      RETURNING 1)
    SELECT count(*)::integer FROM added
    $$`.execute(db);
}
