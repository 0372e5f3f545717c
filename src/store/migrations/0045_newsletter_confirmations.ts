import { type Kysely, sql } from 'kysely';

/**
 * Confirmations and unsubscribing (issue 34, points 5 and 6).
 *
 * - newsletter_messages: the first message from a sender (a double opt-in's confirmation, usually) is
 *   forwarded at once to the account's e-mail: `forwarded_at` once sent, `forward_attempts` and
 *   `forward_error` while it is not, `forward_lease_until` while a process sends it (so that two do not);
 *   `notice_dismissed_at` once the reader dismissed the Newsletters page's "New sender" notice of it.
 *   A partial index finds the messages still to forward without reading the rest.
 * - newsletter_senders: `unsubscribed_at` and `unsubscribed_how` (one-click, mailto or link): when the
 *   reader last unsubscribed from the sender through Tidings, and what was done.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('newsletter_messages').addColumn('forwarded_at', 'text').execute();
  await db.schema
    .alterTable('newsletter_messages')
    .addColumn('forward_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('newsletter_messages').addColumn('forward_lease_until', 'text').execute();
  await db.schema.alterTable('newsletter_messages').addColumn('forward_error', 'text').execute();
  await db.schema.alterTable('newsletter_messages').addColumn('notice_dismissed_at', 'text').execute();
  await sql`CREATE INDEX newsletter_messages_forward_idx ON newsletter_messages (received_at)
    WHERE first_from_sender = 1 AND forwarded_at IS NULL`.execute(db);
  await db.schema.alterTable('newsletter_senders').addColumn('unsubscribed_at', 'text').execute();
  await db.schema.alterTable('newsletter_senders').addColumn('unsubscribed_how', 'text').execute();
}
