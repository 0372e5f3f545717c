import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './index.js';

/**
 * Newsletters by e-mail (issue 34), each a queue item of a sender's own.
 *
 * - newsletter_addresses: each account's inbound address, as its local part (`token`: 32 characters of
 *   lowercase base32, 160 random bits); the domain is the configuration's (TIDINGS_INBOUND_DOMAIN).
 *   Rotating replaces the row's token: mail to the old one finds no account from then on.
 * - newsletter_senders: the From addresses an account gets newsletters from (lower-cased), with the
 *   display name, the List-Unsubscribe and List-Unsubscribe-Post headers of the latest message, and the
 *   feed whose subscription tunes the sender's share of a digest (a `feeds` row of status 'newsletter',
 *   never fetched; null once that feed is gone, until the next message makes it again).
 * - newsletter_messages: every message taken in, once per account (`dedupe_key`: the Message-ID, else a
 *   hash of sender, subject and body), with the page that holds its sanitised body (null once the page is
 *   pruned), the names of the attachments it had (JSON; not kept), whether it was the first from its
 *   sender, and when it came: the daily limit counts an account's rows of the last 24 hours.
 */
export async function up(db: Kysely<unknown>, { idColumn }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('newsletter_addresses')
    .addColumn('account_id', 'integer', (c) =>
      c.primaryKey().notNull().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('newsletter_senders')
    .addColumn('id', 'integer', idColumn)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('feed_id', 'integer', (c) => c.references('feeds.id').onDelete('set null'))
    .addColumn('list_unsubscribe', 'text')
    .addColumn('list_unsubscribe_post', 'text')
    .addColumn('messages', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('first_at', 'text', (c) => c.notNull())
    .addColumn('last_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('newsletter_senders_address_unique', ['account_id', 'address'])
    .execute();
  await sql`CREATE INDEX newsletter_senders_feed_idx ON newsletter_senders (feed_id)`.execute(db);
  await db.schema
    .createTable('newsletter_messages')
    .addColumn('id', 'integer', idColumn)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('sender_id', 'integer', (c) =>
      c.notNull().references('newsletter_senders.id').onDelete('cascade'),
    )
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text')
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text')
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('via', 'text', (c) => c.notNull())
    .addColumn('byte_length', 'integer', (c) => c.notNull())
    .addColumn('page_id', 'integer', (c) => c.references('pages.id').onDelete('set null'))
    .addColumn('attachments', 'text')
    .addColumn('first_from_sender', 'integer', (c) => c.notNull().defaultTo(0))
    .addUniqueConstraint('newsletter_messages_dedupe_unique', ['account_id', 'dedupe_key'])
    .execute();
  await sql`CREATE INDEX newsletter_messages_received_idx ON newsletter_messages (account_id, received_at)`.execute(
    db,
  );
  await sql`CREATE INDEX newsletter_messages_sender_idx ON newsletter_messages (sender_id)`.execute(db);
  await sql`CREATE INDEX newsletter_messages_page_idx ON newsletter_messages (page_id)`.execute(db);
}
