import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './index.js';
import { UNSPACED_RANGES } from './0017_search_ngrams.js';

/**
 * A digest build's items indexed for search in one statement per INSERT instead of one per item (issue 14:
 * 10,000 digests of 50 items on PostgreSQL). PostgreSQL only; SQLite's triggers run in-process and stay
 * as they are.
 *
 * 0015 gave each inserted digest item its search document from a row trigger (one INSERT per item), and
 * 0015 and 0017 fill each document's tsvector and grams from row triggers on search_documents (two look-ups
 * of search_texts per document): about 0.25 ms of the server per item, five times what writing the item
 * costs, and most of a build. Now:
 *
 * - digest_items' INSERT trigger is a statement trigger that reads the statement's new rows (a transition
 *   table) and inserts all their documents at once, each with its tsvector and grams computed there, by the
 *   same expressions over search_texts as 0015's and 0017's triggers.
 * - search_documents' triggers that compute them skip an INSERT that brings its tsvector (one who inserts
 *   it computed both); every other INSERT, and every UPDATE, is computed by them as before.
 *
 * Nothing to reindex: documents come out as they did.
 */
export async function up(db: Kysely<unknown>, { engine }: MigrationContext): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`CREATE FUNCTION search_digest_items_insert() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO search_documents (account_id, kind, item_id, digest_id, page_id, created_at, tsv, grams)
      SELECT d.account_id, 'digest', n.id, n.digest_id, n.page_id, d.created_at, ${sql.raw(TSV)},
        CASE WHEN ${sql.raw(TEXT)} ~ '[${sql.raw(CLASS)}]' THEN ${sql.raw(TEXT)} END
      FROM new_items n
      JOIN digests d ON d.id = n.digest_id
      -- Each item's texts by its id (OFFSET 0 keeps the view from being joined as a whole: the
      -- transition table has no statistics, and a merge join read every digest item there is).
      CROSS JOIN LATERAL (SELECT * FROM search_texts t WHERE t.kind = 'digest' AND t.item_id = n.id OFFSET 0) t
      ORDER BY n.id;
      RETURN NULL;
    END $$`.execute(db);
  await sql`DROP TRIGGER search_digest_items_sync_insert ON digest_items`.execute(db);
  await sql`CREATE TRIGGER search_digest_items_insert AFTER INSERT ON digest_items
    REFERENCING NEW TABLE AS new_items
    FOR EACH STATEMENT EXECUTE FUNCTION search_digest_items_insert()`.execute(db);

  // The UPDATE triggers keep the names of the triggers they replace; the INSERT ones are new.
  for (const fn of ['search_documents_index', 'search_documents_grams']) {
    await sql.raw(`DROP TRIGGER ${fn} ON search_documents`).execute(db);
    await sql
      .raw(`CREATE TRIGGER ${fn} BEFORE UPDATE ON search_documents FOR EACH ROW EXECUTE FUNCTION ${fn}()`)
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER ${fn}_insert BEFORE INSERT ON search_documents
        FOR EACH ROW WHEN (NEW.tsv IS NULL) EXECUTE FUNCTION ${fn}()`,
      )
      .execute(db);
  }
}

/** 0015's tsvector of a document (t is search_texts): ASCII punctuation to spaces, weighted A to D. */
const words = (column: string) => `regexp_replace(t.${column}, '[!-/:-@\\[-\`{-~]+', ' ', 'g')`;
export const TSV = `setweight(to_tsvector('simple', ${words('title')}), 'A')
          || setweight(to_tsvector('simple', ${words('site')} || ' ' || ${words('url')}), 'B')
          || setweight(to_tsvector('simple', ${words('excerpt')}), 'C')
          || setweight(to_tsvector('simple', ${words('body')}), 'D')`;

/** 0017's text of a document and the characters that give it grams. */
export const TEXT = `lower(t.title || ' ' || t.site || ' ' || t.url || ' ' || t.excerpt || ' ' || t.body)`;
export const CLASS = UNSPACED_RANGES.map(
  ([a, b]) => `${String.fromCodePoint(a)}-${String.fromCodePoint(b)}`,
).join('');
