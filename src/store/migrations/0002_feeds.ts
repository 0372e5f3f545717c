import type { Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

/** Feeds (fetched once however many accounts follow them), subscriptions, and the items seen per feed. */
export async function up(db: Kysely<unknown>, { idColumn }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('feeds')
    .addColumn('id', 'integer', idColumn)
    .addColumn('url', 'text', (c) => c.notNull().unique())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('site_url', 'text')
    .addColumn('etag', 'text')
    .addColumn('last_modified', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('next_fetch_at', 'text', (c) => c.notNull())
    .addColumn('interval_minutes', 'integer', (c) => c.notNull().defaultTo(60))
    .addColumn('last_fetched_at', 'text')
    .addColumn('last_success_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('error_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('feeds_due_idx').on('feeds').columns(['status', 'next_fetch_at']).execute();

  await db.schema
    .createTable('subscriptions')
    .addColumn('id', 'integer', idColumn)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('feed_id', 'integer', (c) => c.notNull().references('feeds.id').onDelete('cascade'))
    .addColumn('title', 'text')
    .addColumn('folder', 'text')
    .addColumn('include_filter', 'text')
    .addColumn('exclude_filter', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('subscriptions_account_feed', ['account_id', 'feed_id'])
    .execute();
  await db.schema.createIndex('subscriptions_feed_idx').on('subscriptions').column('feed_id').execute();

  await db.schema
    .createTable('feed_items')
    .addColumn('id', 'integer', idColumn)
    .addColumn('feed_id', 'integer', (c) => c.notNull().references('feeds.id').onDelete('cascade'))
    .addColumn('item_key', 'text', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('published_at', 'text')
    .addColumn('first_seen_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('feed_items_feed_key', ['feed_id', 'item_key'])
    .execute();

  // Where a queued item came from: null for the API, else the feed (kept if the feed goes away).
  await db.schema
    .alterTable('queue_items')
    .addColumn('feed_id', 'integer', (c) => c.references('feeds.id').onDelete('set null'))
    .execute();
}
