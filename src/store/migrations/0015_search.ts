import { decodeHTML } from 'entities';
import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './index.js';

/**
 * Search over the queue and every digest (issue 13). Kept in step by triggers, so that every path that
 * writes an item or a page (a save, a feed, a digest build, the page reader, a removal, an account deleted)
 * keeps the index right without knowing it exists.
 *
 * - pages.text: the plain text of a read page (the reader's extract already had it), what is searched.
 * - search_texts (a view, the same SQL on both engines): what is indexed of each queue and digest item:
 *   the title shown (the given one, else the page's when the given one is the URL), the site (the page's
 *   site name and the feed's name), the URL, the excerpt (feed summary, page description and title) and
 *   the page text, its first 20,000 characters (as much as the page reader keeps: articles/html.ts
 *   MAX_TEXT_CHARS).
 * - search_documents: one row per queue or digest item, keyed by (kind, item_id), with its account, its
 *   digest, its page and when it was queued or digested (newer first among equal ranks).
 * - SQLite: search_fts, a contentless FTS5 table (unicode61, diacritics folded) whose rowid is the
 *   document's id. PostgreSQL: search_documents.tsv, a tsvector of the 'simple' configuration (no
 *   language's stemming or stop words) weighted A title, B site and URL, C excerpt, D text, with a GIN index;
 *   ASCII punctuation becomes a space first, so that "example.com/a-b" gives the words SQLite gives.
 *
 * Triggers: a digest item inserted, an item updated (title, url, summary, page, feed) or deleted inserts,
 * touches or deletes its document (a saved queue item gets its document at the account's next search,
 * store/searchDocuments.ts indexNewQueueItems: a trigger on the save made an API save 3× dearer); a page's title, description, site name, text or state changing touches its
 * documents; touching a document reindexes it. What exists is indexed here (pages' text from their HTML
 * with this migration's own copy of a tag stripper, then every item).
 */
export async function up(db: Kysely<unknown>, { engine, idColumn }: MigrationContext): Promise<void> {
  await db.schema.alterTable('pages').addColumn('text', 'text').execute();
  await backfillPageText(db);

  await db.schema
    .createTable('search_documents')
    .addColumn('id', 'integer', idColumn)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('item_id', 'integer', (c) => c.notNull())
    .addColumn('digest_id', 'integer')
    .addColumn('page_id', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await sql`CREATE UNIQUE INDEX search_documents_item_idx ON search_documents (kind, item_id)`.execute(db);
  await sql`CREATE INDEX search_documents_account_idx ON search_documents (account_id, created_at)`.execute(
    db,
  );
  await sql`CREATE INDEX search_documents_page_idx ON search_documents (page_id)`.execute(db);

  await sql`CREATE VIEW search_texts AS
    ${texts(
      sql`cast('queue' as text)`,
      sql`queue_items`,
      sql`
      (SELECT coalesce(s.title, f.title) FROM feeds f
        LEFT JOIN subscriptions s ON s.feed_id = f.id AND s.account_id = i.account_id
        WHERE f.id = i.feed_id)`,
    )}
    UNION ALL
    ${texts(sql`cast('digest' as text)`, sql`digest_items`, sql`i.feed_title`)}`.execute(db);

  if (engine === 'sqlite') await sqliteIndex(db);
  else await postgresIndex(db);

  await sql`INSERT INTO search_documents (account_id, kind, item_id, digest_id, page_id, created_at)
    SELECT account_id, 'queue', id, NULL, page_id, created_at FROM queue_items ORDER BY id`.execute(db);
  await sql`INSERT INTO search_documents (account_id, kind, item_id, digest_id, page_id, created_at)
    SELECT d.account_id, 'digest', i.id, i.digest_id, i.page_id, d.created_at
    FROM digest_items i JOIN digests d ON d.id = i.digest_id ORDER BY i.id`.execute(db);

  if (engine === 'sqlite') await sqliteTriggers(db);
  else await postgresTriggers(db);
}

/** One half of search_texts: the indexed text of every item of `table`, with `feed` its feed's name. */
function texts(kind: ReturnType<typeof sql>, table: ReturnType<typeof sql>, feed: ReturnType<typeof sql>) {
  return sql`SELECT ${kind} AS kind, i.id AS item_id,
      CASE WHEN (trim(i.title) = '' OR trim(i.title) = trim(i.url)) AND coalesce(trim(p.title), '') <> ''
        THEN p.title ELSE i.title END AS title,
      trim(coalesce(p.site_name, '') || ' ' || coalesce(${feed}, '')) AS site,
      i.url AS url,
      trim(coalesce(i.summary, '') || ' ' || coalesce(p.description, '') || ' ' || coalesce(p.title, '')) AS excerpt,
      substr(coalesce(p.text, ''), 1, 20000) AS body
    FROM ${table} i LEFT JOIN pages p ON p.id = i.page_id AND p.state = 'read'`;
}

async function sqliteIndex(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE VIRTUAL TABLE search_fts USING fts5(
    title, site, url, excerpt, body,
    content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2')`.execute(db);
  const insert = sql`INSERT INTO search_fts (rowid, title, site, url, excerpt, body)
    SELECT NEW.id, title, site, url, excerpt, body FROM search_texts
    WHERE kind = NEW.kind AND item_id = NEW.item_id;`;
  await sql`CREATE TRIGGER search_documents_ai AFTER INSERT ON search_documents BEGIN ${insert} END`.execute(
    db,
  );
  await sql`CREATE TRIGGER search_documents_au AFTER UPDATE ON search_documents BEGIN
    DELETE FROM search_fts WHERE rowid = OLD.id; ${insert} END`.execute(db);
  await sql`CREATE TRIGGER search_documents_ad AFTER DELETE ON search_documents BEGIN
    DELETE FROM search_fts WHERE rowid = OLD.id; END`.execute(db);
}

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TRIGGER search_queue_au AFTER UPDATE OF title, url, summary, page_id, feed_id ON queue_items
    BEGIN UPDATE search_documents SET page_id = NEW.page_id WHERE kind = 'queue' AND item_id = NEW.id; END`.execute(
    db,
  );
  await sql`CREATE TRIGGER search_queue_ad AFTER DELETE ON queue_items BEGIN
    DELETE FROM search_documents WHERE kind = 'queue' AND item_id = OLD.id; END`.execute(db);
  await sql`CREATE TRIGGER search_digest_ai AFTER INSERT ON digest_items BEGIN ${sql.raw(NEW_DOCUMENT.digest)}; END`.execute(
    db,
  );
  await sql`CREATE TRIGGER search_digest_au AFTER UPDATE OF title, url, summary, page_id, feed_title ON digest_items
    BEGIN UPDATE search_documents SET page_id = NEW.page_id WHERE kind = 'digest' AND item_id = NEW.id; END`.execute(
    db,
  );
  await sql`CREATE TRIGGER search_digest_ad AFTER DELETE ON digest_items BEGIN
    DELETE FROM search_documents WHERE kind = 'digest' AND item_id = OLD.id; END`.execute(db);
  await sql`CREATE TRIGGER search_pages_au AFTER UPDATE OF title, description, site_name, text, state ON pages
    BEGIN UPDATE search_documents SET page_id = page_id WHERE page_id = NEW.id; END`.execute(db);
}

/** ASCII punctuation to spaces, so that PostgreSQL's parser splits what SQLite's tokenizer splits. */
const words = (column: string) => sql.raw(`regexp_replace(t.${column}, '[!-/:-@\\[-\`{-~]+', ' ', 'g')`);

async function postgresIndex(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE search_documents ADD COLUMN tsv tsvector`.execute(db);
  await sql`CREATE INDEX search_documents_tsv_idx ON search_documents USING gin (tsv)`.execute(db);
  await sql`CREATE FUNCTION search_documents_index() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      SELECT setweight(to_tsvector('simple', ${words('title')}), 'A')
          || setweight(to_tsvector('simple', ${words('site')} || ' ' || ${words('url')}), 'B')
          || setweight(to_tsvector('simple', ${words('excerpt')}), 'C')
          || setweight(to_tsvector('simple', ${words('body')}), 'D')
        INTO NEW.tsv
        FROM search_texts t WHERE t.kind = NEW.kind AND t.item_id = NEW.item_id;
      RETURN NEW;
    END $$`.execute(db);
  await sql`CREATE TRIGGER search_documents_index BEFORE INSERT OR UPDATE ON search_documents
    FOR EACH ROW EXECUTE FUNCTION search_documents_index()`.execute(db);
}

/** A queue or digest item's document, as a trigger on its table inserts it (NEW is the item). */
const NEW_DOCUMENT = {
  queue: `INSERT INTO search_documents (account_id, kind, item_id, digest_id, page_id, created_at)
    VALUES (NEW.account_id, 'queue', NEW.id, NULL, NEW.page_id, NEW.created_at)`,
  digest: `INSERT INTO search_documents (account_id, kind, item_id, digest_id, page_id, created_at)
    SELECT d.account_id, 'digest', NEW.id, NEW.digest_id, NEW.page_id, d.created_at
    FROM digests d WHERE d.id = NEW.digest_id`,
} as const;

/** The PostgreSQL trigger function that keeps the documents of one kind of item in step. */
const syncFunction = (name: string, kind: keyof typeof NEW_DOCUMENT) =>
  sql.raw(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        ${NEW_DOCUMENT[kind]};
      ELSIF TG_OP = 'UPDATE' THEN
        UPDATE search_documents SET page_id = NEW.page_id WHERE kind = '${kind}' AND item_id = NEW.id;
      ELSE
        DELETE FROM search_documents WHERE kind = '${kind}' AND item_id = OLD.id;
      END IF;
      RETURN NULL;
    END $$`);

async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  await syncFunction('search_queue_items_sync', 'queue').execute(db);
  await syncFunction('search_digest_items_sync', 'digest').execute(db);
  await sql`CREATE FUNCTION search_pages_sync() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE search_documents SET page_id = page_id WHERE page_id = NEW.id;
      RETURN NULL;
    END $$`.execute(db);
  const each = (table: string, fn: string, events: string) =>
    sql
      .raw(
        `CREATE TRIGGER ${fn}_${events.split(' ')[0]?.toLowerCase() ?? ''} AFTER ${events} ON ${table}
        FOR EACH ROW EXECUTE FUNCTION ${fn}()`,
      )
      .execute(db);
  await each('queue_items', 'search_queue_items_sync', 'UPDATE OF title, url, summary, page_id, feed_id');
  await each('queue_items', 'search_queue_items_sync', 'DELETE');
  await each('digest_items', 'search_digest_items_sync', 'INSERT');
  await each(
    'digest_items',
    'search_digest_items_sync',
    'UPDATE OF title, url, summary, page_id, feed_title',
  );
  await each('digest_items', 'search_digest_items_sync', 'DELETE');
  await each('pages', 'search_pages_sync', 'UPDATE OF title, description, site_name, text, state');
}

/** Pages read per batch while their text is filled in. */
const BATCH = 200;

async function backfillPageText(db: Kysely<unknown>): Promise<void> {
  let after = 0;
  for (;;) {
    const { rows } = await sql<{ id: number; html: string }>`
      SELECT id, html FROM pages WHERE id > ${after} AND html IS NOT NULL ORDER BY id LIMIT ${BATCH}`.execute(
      db,
    );
    const last = rows.at(-1);
    if (last === undefined) return;
    for (const row of rows) {
      await sql`UPDATE pages SET text = ${plainText(row.html)} WHERE id = ${row.id}`.execute(db);
    }
    after = last.id;
  }
}

/** Tags inside a line of text: dropped without a space ("<em>petrels</em>!" is "petrels!"). */
const INLINE =
  /^(a|abbr|b|bdi|bdo|cite|code|data|dfn|em|i|kbd|mark|q|s|samp|small|span|strong|sub|sup|time|u|var)$/i;

/**
 * This migration's own copy of "the plain text of sanitised reader HTML" (lib/text.ts htmlToText is the
 * living rule): inline tags dropped, other tags a space, references decoded, whitespace folded.
 */
function plainText(html: string): string {
  const text = html.replace(/<\/?([a-z][a-z0-9]*)\b[^>]*>|<[^>]*>/gi, (_tag, name: string | undefined) =>
    name !== undefined && INLINE.test(name) ? '' : ' ',
  );
  return decodeHTML(text).replace(/\s+/g, ' ').trim();
}
