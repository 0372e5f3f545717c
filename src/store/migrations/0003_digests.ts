import type { Kysely } from 'kysely';
import type { MigrationContext } from './index.js';

/**
 * The daily digest: each account's schedule and delivery settings, what a queued feed item needs to show
 * in a digest, the digests themselves (one per account and local day) and the items they took from the queue.
 */
export async function up(db: Kysely<unknown>, { idColumn }: MigrationContext): Promise<void> {
  // Settings (email and timezone exist since 0001). Booleans are 0/1 integers on both engines.
  const accountColumns = [
    db.schema.alterTable('accounts').addColumn('digest_time', 'text', (c) => c.notNull().defaultTo('07:00')),
    db.schema
      .alterTable('accounts')
      .addColumn('digest_days', 'text', (c) => c.notNull().defaultTo('mon,tue,wed,thu,fri,sat,sun')),
    db.schema
      .alterTable('accounts')
      .addColumn('digest_max_items', 'integer', (c) => c.notNull().defaultTo(100)),
    db.schema
      .alterTable('accounts')
      .addColumn('digest_skip_empty', 'integer', (c) => c.notNull().defaultTo(1)),
    db.schema.alterTable('accounts').addColumn('email_enabled', 'integer', (c) => c.notNull().defaultTo(1)),
    // Scheduling state: the next slot in UTC (null: not scheduled yet, the digest worker fills it in),
    // the local day of the last digest built, and the lease of the worker building it.
    db.schema.alterTable('accounts').addColumn('digest_due_at', 'text'),
    db.schema.alterTable('accounts').addColumn('last_digest_date', 'text'),
    db.schema.alterTable('accounts').addColumn('digest_lease_owner', 'text'),
    db.schema.alterTable('accounts').addColumn('digest_lease_until', 'text'),
  ];
  // One column per statement: SQLite's ALTER TABLE adds one at a time.
  for (const statement of accountColumns) await statement.execute();
  await db.schema.createIndex('accounts_digest_due_idx').on('accounts').column('digest_due_at').execute();

  // Filled by the feed path; null for saved URLs.
  await db.schema.alterTable('queue_items').addColumn('summary', 'text').execute();
  await db.schema.alterTable('queue_items').addColumn('published_at', 'text').execute();

  await db.schema
    .createTable('digests')
    .addColumn('id', 'integer', idColumn)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('local_date', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('item_count', 'integer', (c) => c.notNull())
    .addColumn('remaining', 'integer', (c) => c.notNull())
    .addColumn('delivery', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_until', 'text')
    .addUniqueConstraint('digests_account_local_date', ['account_id', 'local_date'])
    .execute();
  await db.schema
    .createIndex('digests_delivery_idx')
    .on('digests')
    .columns(['delivery', 'next_attempt_at'])
    .execute();

  await db.schema
    .createTable('digest_items')
    .addColumn('id', 'integer', idColumn)
    .addColumn('digest_id', 'integer', (c) => c.notNull().references('digests.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('feed_id', 'integer', (c) => c.references('feeds.id').onDelete('set null'))
    .addColumn('feed_title', 'text')
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('summary', 'text')
    .addColumn('published_at', 'text')
    .addColumn('queued_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('digest_items_digest_position', ['digest_id', 'position'])
    .execute();
}
