import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './index.js';

/**
 * The reading list (issue 27): links an account brings from Pocket, Instapaper, Omnivore, Wallabag or a
 * browser's bookmarks, kept apart from the queue so that thousands of old links never flood a digest.
 *
 * - reading_list: one row per account and link (`url_key`, the queue's dedupe key, unique per account).
 *   `state` 'unread' | 'archived'; `saved_at` the date the service recorded (the earliest when merged);
 *   `tags` the item's tags, lower-cased, each followed by a newline and the whole preceded by one
 *   ("\nweb\nrust\n"; '' when none), so that a tag filter is one LIKE on both engines; `html`/`text` the
 *   readable text an export brought (Omnivore, Wallabag), sanitised, kept on the item and never in the
 *   shared `pages` (another account's copy of a URL must not be able to write what this one reads);
 *   `page_id` the page read for the link in the background, null until then (and for items with `html`).
 * - For the digest's resurfacing (a later step, unused here): reading_list.offered_at (when a digest last
 *   carried the item, null: never) and offered_count; accounts.resurface_count (how many unread items a
 *   digest offers, default 3, 0: none) and accounts.resurface_order ('oldest' saved first, or 'random').
 * - Search: a third kind of search document, 'reading', indexed by the view search_texts (redefined here
 *   with a third branch: the item's title, else the page's; the page's site; the URL; description, tags
 *   and the page's description; the page's text, else the item's own) and kept in step by triggers on
 *   reading_list, as 0015's are on queue_items: an insert adds the document, an update of what is indexed
 *   touches it (0015's and 0017's triggers on search_documents recompute it), a delete removes it.
 */
export async function up(db: Kysely<unknown>, { engine, idColumn }: MigrationContext): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('resurface_count', 'integer', (c) => c.notNull().defaultTo(3))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('resurface_order', 'text', (c) => c.notNull().defaultTo('oldest'))
    .execute();

  await db.schema
    .createTable('reading_list')
    .addColumn('id', 'integer', idColumn)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('url_key', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('unread'))
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('saved_at', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('author', 'text')
    .addColumn('published_at', 'text')
    .addColumn('html', 'text')
    .addColumn('text', 'text')
    .addColumn('page_id', 'integer')
    .addColumn('offered_at', 'text')
    .addColumn('offered_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await sql`CREATE UNIQUE INDEX reading_list_key_idx ON reading_list (account_id, url_key)`.execute(db);
  await sql`CREATE INDEX reading_list_saved_idx ON reading_list (account_id, state, saved_at)`.execute(db);
  await sql`CREATE INDEX reading_list_page_idx ON reading_list (page_id)`.execute(db);

  await redefineSearchTexts(db, engine);
  if (engine === 'sqlite') await sqliteTriggers(db);
  else await postgresTriggers(db);
}

/** 0015's two branches as they are, and the reading list's. */
async function redefineSearchTexts(db: Kysely<unknown>, engine: 'sqlite' | 'postgres'): Promise<void> {
  const branch = (kind: string, table: string, feed: string) =>
    sql.raw(`SELECT cast('${kind}' as text) AS kind, i.id AS item_id,
      CASE WHEN (trim(i.title) = '' OR trim(i.title) = trim(i.url)) AND coalesce(trim(p.title), '') <> ''
        THEN p.title ELSE i.title END AS title,
      trim(coalesce(p.site_name, '') || ' ' || coalesce(${feed}, '')) AS site,
      i.url AS url,
      trim(coalesce(i.summary, '') || ' ' || coalesce(p.description, '') || ' ' || coalesce(p.title, '')) AS excerpt,
      substr(coalesce(p.text, ''), 1, 20000) AS body
    FROM ${table} i LEFT JOIN pages p ON p.id = i.page_id AND p.state = 'read'`);
  const queueFeed = `(SELECT coalesce(s.title, f.title) FROM feeds f
        LEFT JOIN subscriptions s ON s.feed_id = f.id AND s.account_id = i.account_id
        WHERE f.id = i.feed_id)`;
  // A newline, written as each engine spells it.
  const nl = engine === 'sqlite' ? 'char(10)' : 'chr(10)';
  const reading = sql.raw(`SELECT cast('reading' as text) AS kind, r.id AS item_id,
      CASE WHEN (trim(r.title) = '' OR trim(r.title) = trim(r.url)) AND coalesce(trim(p.title), '') <> ''
        THEN p.title ELSE r.title END AS title,
      trim(coalesce(p.site_name, '') || ' ' || coalesce(r.author, '')) AS site,
      r.url AS url,
      trim(coalesce(r.description, '') || ' ' || replace(r.tags, ${nl}, ' ') || ' ' ||
        coalesce(p.description, '') || ' ' || coalesce(p.title, '')) AS excerpt,
      substr(coalesce(p.text, r.text, ''), 1, 20000) AS body
    FROM reading_list r LEFT JOIN pages p ON p.id = r.page_id AND p.state = 'read'`);
  const body = sql`${branch('queue', 'queue_items', queueFeed)}
    UNION ALL
    ${branch('digest', 'digest_items', 'i.feed_title')}
    UNION ALL
    ${reading}`;
  if (engine === 'sqlite') {
    await sql`DROP VIEW search_texts`.execute(db);
    await sql`CREATE VIEW search_texts AS ${body}`.execute(db);
  } else {
    await sql`CREATE OR REPLACE VIEW search_texts AS ${body}`.execute(db);
  }
}

const NEW_DOCUMENT = `INSERT INTO search_documents (account_id, kind, item_id, digest_id, page_id, created_at)
    VALUES (NEW.account_id, 'reading', NEW.id, NULL, NEW.page_id, NEW.saved_at)`;
const TOUCH = `UPDATE search_documents SET page_id = NEW.page_id, created_at = NEW.saved_at
    WHERE kind = 'reading' AND item_id = NEW.id`;
const DROP = `DELETE FROM search_documents WHERE kind = 'reading' AND item_id = OLD.id`;
const INDEXED = 'title, url, description, author, tags, text, page_id, saved_at';

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TRIGGER search_reading_ai AFTER INSERT ON reading_list BEGIN ${sql.raw(NEW_DOCUMENT)}; END`.execute(
    db,
  );
  await sql`CREATE TRIGGER search_reading_au AFTER UPDATE OF ${sql.raw(INDEXED)} ON reading_list
    BEGIN ${sql.raw(TOUCH)}; END`.execute(db);
  await sql`CREATE TRIGGER search_reading_ad AFTER DELETE ON reading_list BEGIN ${sql.raw(DROP)}; END`.execute(
    db,
  );
}

async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE FUNCTION search_reading_list_sync() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        ${sql.raw(NEW_DOCUMENT)};
      ELSIF TG_OP = 'UPDATE' THEN
        ${sql.raw(TOUCH)};
      ELSE
        ${sql.raw(DROP)};
      END IF;
      RETURN NULL;
    END $$`.execute(db);
  for (const [name, events] of [
    ['insert', 'INSERT'],
    ['update', `UPDATE OF ${INDEXED}`],
    ['delete', 'DELETE'],
  ] as const) {
    await sql`CREATE TRIGGER ${sql.raw(`search_reading_list_${name}`)} AFTER ${sql.raw(events)} ON reading_list
      FOR EACH ROW EXECUTE FUNCTION search_reading_list_sync()`.execute(db);
  }
}
