import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './index.js';

/**
 * A trigram index for the search terms of scripts written without spaces (issue 13: Chinese, Japanese,
 * Thai, Lao, Khmer, Burmese), which 0015 matched by scanning the account's text. Only the documents that
 * hold a character of these scripts are indexed, as one text: the lower-cased fields of search_texts
 * joined by spaces, exactly what the scan compared (a term of these scripts can only be found in such a
 * document, so the others need no entry).
 *
 * - SQLite: search_grams, a contentless FTS5 table with the `trigram` tokenizer (case-sensitive: the text
 *   is already lower-cased by lower(), as the query's term is), whose rowid is the document's id, and
 *   search_grams_instances, its fts5vocab table of every trigram's occurrences, where a term of 1 or 2
 *   characters finds the documents of the trigrams that begin with it (a range of the index, read in
 *   order). Two spaces end the text, so that every character of it begins a trigram.
 * - PostgreSQL: search_documents.grams, that text (null for the other documents), with a GIN index of
 *   pg_trgm's gin_trgm_ops, which a LIKE '%term%' reads. When the extension cannot be created (a role
 *   without the right), the column is there without the index and a warning says so: a search then scans
 *   the grams of the documents that have some, which is still less than 0015's scan.
 *
 * Kept in step as the rest of the index is: triggers on search_documents (which 0015's triggers and
 * store/searchDocuments.ts indexNewQueueItems keep in step with the items and pages) add, redo and remove
 * the entry with the document. What exists is indexed here.
 */
export async function up(db: Kysely<unknown>, { engine }: MigrationContext): Promise<void> {
  if (engine === 'sqlite') await sqliteGrams(db);
  else await postgresGrams(db);
}

/**
 * Code points of the scripts without spaces, as [first, last] ranges: a superset of lib/searchQuery.ts's
 * UNSPACED (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar and the symbols between them), this
 * migration's own copy (a test checks that it covers every character UNSPACED matches).
 */
export const UNSPACED_RANGES: readonly (readonly [number, number])[] = [
  [0x0e00, 0x0eff],
  [0x1000, 0x109f],
  [0x1780, 0x17ff],
  [0x19e0, 0x19ff],
  [0x2e80, 0x2fdf],
  [0x3000, 0x30ff],
  [0x31f0, 0x9fff],
  [0xa9e0, 0xa9ff],
  [0xaa60, 0xaa7f],
  [0xf900, 0xfaff],
  [0xff66, 0xff9f],
  [0x116d0, 0x116ff],
  [0x16fe0, 0x16fff],
  [0x1aff0, 0x1b16f],
  [0x1f200, 0x1f200],
  [0x20000, 0x3ffff],
];

/** The ranges as the inside of a bracket expression (GLOB and POSIX regular expressions read it alike). */
const CLASS = UNSPACED_RANGES.map(([a, b]) => `${String.fromCodePoint(a)}-${String.fromCodePoint(b)}`).join(
  '',
);

/** The document's text as 0015's scan compared it, lower-cased (t is search_texts). */
const TEXT = `lower(t.title || ' ' || t.site || ' ' || t.url || ' ' || t.excerpt || ' ' || t.body)`;

async function sqliteGrams(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE VIRTUAL TABLE search_grams USING fts5(
    text, content = '', contentless_delete = 1, tokenize = 'trigram case_sensitive 1')`.execute(db);
  await sql`CREATE VIRTUAL TABLE search_grams_instances USING fts5vocab(search_grams, 'instance')`.execute(
    db,
  );
  /** Adds the entries of what `from` selects (an id and its TEXT) that hold a character of CLASS. */
  const grams = (from: string) =>
    sql.raw(`INSERT INTO search_grams (rowid, text)
    SELECT id, text || '  ' FROM (SELECT ${from}) WHERE text GLOB '*[${CLASS}]*'`);
  const insert = grams(
    `NEW.id AS id, ${TEXT} AS text FROM search_texts t WHERE t.kind = NEW.kind AND t.item_id = NEW.item_id`,
  );
  await sql`CREATE TRIGGER search_grams_ai AFTER INSERT ON search_documents BEGIN ${insert}; END`.execute(db);
  await sql`CREATE TRIGGER search_grams_au AFTER UPDATE ON search_documents BEGIN
    DELETE FROM search_grams WHERE rowid = OLD.id; ${insert}; END`.execute(db);
  await sql`CREATE TRIGGER search_grams_ad AFTER DELETE ON search_documents BEGIN
    DELETE FROM search_grams WHERE rowid = OLD.id; END`.execute(db);
  await grams(`d.id AS id, ${TEXT} AS text FROM search_texts t
    JOIN search_documents d ON d.kind = t.kind AND d.item_id = t.item_id`).execute(db);
}

async function postgresGrams(db: Kysely<unknown>): Promise<void> {
  const trigrams = await createTrigramExtension(db);
  await sql`ALTER TABLE search_documents ADD COLUMN grams text`.execute(db);
  const text = sql.raw(`SELECT ${TEXT} AS text FROM search_texts t
    WHERE t.kind = NEW.kind AND t.item_id = NEW.item_id`);
  await sql`CREATE FUNCTION search_documents_grams() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE doc_text text;
    BEGIN
      ${text} INTO doc_text;
      NEW.grams := CASE WHEN doc_text ~ '[${sql.raw(CLASS)}]' THEN doc_text END;
      RETURN NEW;
    END $$`.execute(db);
  // What exists, without 0015's trigger recomputing each updated document's tsvector.
  await sql`ALTER TABLE search_documents DISABLE TRIGGER search_documents_index`.execute(db);
  await sql`UPDATE search_documents d SET grams = x.text
    FROM (${sql.raw(`SELECT t.kind, t.item_id, ${TEXT} AS text FROM search_texts t`)}) x
    WHERE x.kind = d.kind AND x.item_id = d.item_id AND x.text ~ ${`[${CLASS}]`}`.execute(db);
  await sql`ALTER TABLE search_documents ENABLE TRIGGER search_documents_index`.execute(db);
  await sql`CREATE TRIGGER search_documents_grams BEFORE INSERT OR UPDATE ON search_documents
    FOR EACH ROW EXECUTE FUNCTION search_documents_grams()`.execute(db);
  if (trigrams) {
    await sql`CREATE INDEX search_documents_grams_idx ON search_documents
      USING gin (grams gin_trgm_ops) WHERE grams IS NOT NULL`.execute(db);
  }
}

/**
 * CREATE EXTENSION pg_trgm, inside a savepoint so that a refusal (a role that may not create it, a server
 * without it) leaves the migration's transaction usable; false, with a warning, when refused.
 */
async function createTrigramExtension(db: Kysely<unknown>): Promise<boolean> {
  await sql`SAVEPOINT search_grams_extension`.execute(db);
  try {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
    await sql`RELEASE SAVEPOINT search_grams_extension`.execute(db);
    return true;
  } catch (err) {
    await sql`ROLLBACK TO SAVEPOINT search_grams_extension`.execute(db);
    process.emitWarning(
      `pg_trgm could not be created (${err instanceof Error ? err.message : String(err)}): searches in ` +
        'Chinese, Japanese, Thai, Lao, Khmer or Burmese scan instead of using an index; see docs/search.md.',
      { code: 'TIDINGS_NO_PG_TRGM' },
    );
    return false;
  }
}
