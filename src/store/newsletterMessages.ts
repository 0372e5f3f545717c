import type { Kysely } from 'kysely';
import type { Database, Timestamp } from './schema.js';
import type { InboundVia } from './schemaNewsletters.js';

/** Whether the account already took in the message with this key. */
export async function hasNewsletterMessage(
  db: Kysely<Database>,
  accountId: number,
  dedupeKey: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('newsletter_messages')
    .select('id')
    .where('account_id', '=', accountId)
    .where('dedupe_key', '=', dedupeKey)
    .executeTakeFirst();
  return row !== undefined;
}

/** Messages the account took in at or after `since` (the daily limit's window). */
export async function newsletterMessagesSince(
  db: Kysely<Database>,
  accountId: number,
  since: Timestamp,
): Promise<number> {
  const row = await db
    .selectFrom('newsletter_messages')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('received_at', '>=', since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export interface NewNewsletterMessage {
  senderId: number;
  dedupeKey: string;
  messageId: string | null;
  subject: string;
  publishedAt: Timestamp | null;
  receivedAt: Timestamp;
  via: InboundVia;
  byteLength: number;
  pageId: number | null;
  attachments: readonly string[];
  firstFromSender: boolean;
}

/** Records a message taken in; its id, or null when the account has one with the same key already. */
export async function insertNewsletterMessage(
  db: Kysely<Database>,
  accountId: number,
  m: NewNewsletterMessage,
): Promise<number | null> {
  const row = await db
    .insertInto('newsletter_messages')
    .values({
      account_id: accountId,
      sender_id: m.senderId,
      dedupe_key: m.dedupeKey,
      message_id: m.messageId,
      subject: m.subject,
      published_at: m.publishedAt,
      received_at: m.receivedAt,
      via: m.via,
      byte_length: m.byteLength,
      page_id: m.pageId,
      attachments: m.attachments.length === 0 ? null : JSON.stringify(m.attachments),
      first_from_sender: m.firstFromSender ? 1 : 0,
    })
    .onConflict((oc) => oc.columns(['account_id', 'dedupe_key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id ?? null;
}
