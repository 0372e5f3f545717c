import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './index.js';

/**
 * Saved pages read by Tidings (issue 11). A page is fetched once per URL, however many accounts saved it
 * (`url_key` is the queue's normalised key), by whichever worker holds its lease; what was read is kept
 * beside the queue and digest items that point at it. Nothing the API lists changes: queue_items keeps
 * its url and title exactly as saved.
 *
 * - pages: the reading state (pending → read | failed, attempts, the next attempt, the lease) and what was
 *   extracted (title, description, site, author, time, language, canonical URL, lead image, the sanitised
 *   reader HTML and its word count, or a file's type and size).
 * - queue_items.page_id and digest_items.page_id: the page an item shows; null until it is linked.
 * - feed_items.image_url, queue_items.image_url, digest_items.image_url: a feed item's own image (its
 *   media:thumbnail, JSON Feed image, image enclosure), shown as saved pages show their lead image.
 * - subscriptions.fetch_original: 1 reads the pages of a feed's items too (off by default).
 * - accounts.show_images and accounts.clean_links: the reader's switches (both on by default).
 */
export async function up(db: Kysely<unknown>, { idColumn }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('pages')
    .addColumn('id', 'integer', idColumn)
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('url_key', 'text', (c) => c.notNull().unique())
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('fetched_at', 'text')
    .addColumn('http_status', 'integer')
    .addColumn('error', 'text')
    .addColumn('final_url', 'text')
    .addColumn('kind', 'text')
    .addColumn('title', 'text')
    .addColumn('description', 'text')
    .addColumn('site_name', 'text')
    .addColumn('author', 'text')
    .addColumn('published_at', 'text')
    .addColumn('language', 'text')
    .addColumn('canonical_url', 'text')
    .addColumn('image_url', 'text')
    .addColumn('image_width', 'integer')
    .addColumn('image_height', 'integer')
    .addColumn('image_alt', 'text')
    .addColumn('html', 'text')
    .addColumn('word_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('reading_minutes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('media_type', 'text')
    .addColumn('byte_length', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // The reader's work list: pending pages by when they are next due.
  await sql`CREATE INDEX pages_due_idx ON pages (next_attempt_at) WHERE state = 'pending'`.execute(db);

  await db.schema
    .alterTable('queue_items')
    .addColumn('page_id', 'integer', (c) => c.references('pages.id').onDelete('set null'))
    .execute();
  // Saved items not linked to a page yet: what the reader links next, without scanning whole queues.
  await sql`CREATE INDEX queue_items_unlinked_idx ON queue_items (id) WHERE page_id IS NULL`.execute(db);
  await db.schema.createIndex('queue_items_page_idx').on('queue_items').column('page_id').execute();

  await db.schema
    .alterTable('digest_items')
    .addColumn('page_id', 'integer', (c) => c.references('pages.id').onDelete('set null'))
    .execute();
  for (const table of ['feed_items', 'queue_items', 'digest_items']) {
    await db.schema.alterTable(table).addColumn('image_url', 'text').execute();
  }
  await db.schema.createIndex('digest_items_page_idx').on('digest_items').column('page_id').execute();

  await db.schema
    .alterTable('subscriptions')
    .addColumn('fetch_original', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('show_images', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  await db.schema
    .alterTable('accounts')
    .addColumn('clean_links', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}
