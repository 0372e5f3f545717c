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

/** A sender's first message, as the Newsletters page's "New sender" notice shows it. */
export interface NewSenderNotice {
  id: number;
  subject: string;
  receivedAt: Timestamp;
  pageId: number | null;
  senderName: string;
  senderAddress: string;
  forwardedAt: Timestamp | null;
}

/** The account's first messages from a sender received at or after `since` and not dismissed, latest first. */
export async function newSenderNotices(
  db: Kysely<Database>,
  accountId: number,
  since: Timestamp,
  limit: number,
): Promise<NewSenderNotice[]> {
  const rows = await db
    .selectFrom('newsletter_messages as m')
    .innerJoin('newsletter_senders as n', 'n.id', 'm.sender_id')
    .select([
      'm.id',
      'm.subject',
      'm.received_at as receivedAt',
      'm.page_id as pageId',
      'n.name',
      'n.address as senderAddress',
      'm.forwarded_at as forwardedAt',
    ])
    .where('m.account_id', '=', accountId)
    .where('m.first_from_sender', '=', 1)
    .where('m.notice_dismissed_at', 'is', null)
    .where('m.received_at', '>=', since)
    .orderBy('m.received_at', 'desc')
    .orderBy('m.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map(({ name, ...r }) => ({ ...r, senderName: name ?? r.senderAddress }));
}

/** Dismisses the notice of one of the account's messages; whether there was one to dismiss. */
export async function dismissNewSenderNotice(
  db: Kysely<Database>,
  accountId: number,
  messageId: number,
  at: Timestamp,
): Promise<boolean> {
  const result = await db
    .updateTable('newsletter_messages')
    .set({ notice_dismissed_at: at })
    .where('account_id', '=', accountId)
    .where('id', '=', messageId)
    .where('first_from_sender', '=', 1)
    .where('notice_dismissed_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Attempts at forwarding a sender's first message before it is given up. */
export const FORWARD_ATTEMPTS = 5;

/** A sender's first message to forward to its account's e-mail. */
export interface DueForward {
  id: number;
  accountId: number;
  email: string;
  subject: string;
  receivedAt: Timestamp;
  senderName: string;
  senderAddress: string;
  html: string | null;
  text: string | null;
  pageId: number | null;
  /** The account's language (null: the operator's default): the forward's own words are in it. */
  language: string | null;
}

/**
 * First messages from a sender, received at or after `since`, not forwarded yet, tried fewer than
 * FORWARD_ATTEMPTS times and not being sent by a process (its lease passed), whose account has an e-mail
 * and is not disabled; the oldest first. Across accounts: the forwarder's pass (the partial index of 0045).
 */
export async function dueForwards(
  db: Kysely<Database>,
  at: { now: Timestamp; since: Timestamp },
  limit: number,
): Promise<DueForward[]> {
  const rows = await db
    .selectFrom('newsletter_messages as m')
    .innerJoin('accounts as a', 'a.id', 'm.account_id')
    .innerJoin('newsletter_senders as n', 'n.id', 'm.sender_id')
    .leftJoin('pages as p', 'p.id', 'm.page_id')
    .select([
      'm.id',
      'm.account_id as accountId',
      'a.email',
      'a.language',
      'm.subject',
      'm.received_at as receivedAt',
      'n.name',
      'n.address as senderAddress',
      'p.html',
      'p.text',
      'm.page_id as pageId',
    ])
    .where('m.first_from_sender', '=', 1)
    .where('m.forwarded_at', 'is', null)
    .where('m.received_at', '>=', at.since)
    .where('m.forward_attempts', '<', FORWARD_ATTEMPTS)
    .where((eb) => eb.or([eb('m.forward_lease_until', 'is', null), eb('m.forward_lease_until', '<', at.now)]))
    .where('a.email', 'is not', null)
    .where('a.disabled_at', 'is', null)
    .orderBy('m.received_at')
    .orderBy('m.id')
    .limit(limit)
    .execute();
  return rows.flatMap(({ email, name, ...r }) =>
    email === null ? [] : [{ ...r, email, senderName: name ?? r.senderAddress }],
  );
}

/**
 * Takes a message to forward until `leaseUntil` (one attempt more), unless it was forwarded or another
 * process holds it; whether this one got it.
 */
export async function claimForward(
  db: Kysely<Database>,
  accountId: number,
  messageId: number,
  at: { now: Timestamp; leaseUntil: Timestamp },
): Promise<boolean> {
  const result = await db
    .updateTable('newsletter_messages')
    .set((eb) => ({ forward_lease_until: at.leaseUntil, forward_attempts: eb('forward_attempts', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('id', '=', messageId)
    .where('forwarded_at', 'is', null)
    .where((eb) => eb.or([eb('forward_lease_until', 'is', null), eb('forward_lease_until', '<', at.now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** What came of a forward: sent (at), or why not, and whether to try again after the lease. */
export async function recordForward(
  db: Kysely<Database>,
  accountId: number,
  messageId: number,
  outcome: { sentAt: Timestamp } | { error: string; giveUp: boolean },
): Promise<void> {
  await db
    .updateTable('newsletter_messages')
    .set(
      'sentAt' in outcome
        ? { forwarded_at: outcome.sentAt, forward_error: null, forward_lease_until: null }
        : {
            forward_error: outcome.error.slice(0, 1000),
            ...(outcome.giveUp ? { forward_attempts: FORWARD_ATTEMPTS } : {}),
          },
    )
    .where('account_id', '=', accountId)
    .where('id', '=', messageId)
    .execute();
}
