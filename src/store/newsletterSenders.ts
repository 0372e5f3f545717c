import type { Kysely, Selectable } from 'kysely';
import type { Database, FeedPriority, Timestamp } from './schema.js';
import type { NewsletterSendersTable } from './schemaNewsletters.js';

export type NewsletterSenderRow = Selectable<NewsletterSendersTable>;

/** What one message says of its sender. */
export interface SenderSeen {
  address: string;
  name: string | null;
  feedId: number;
  listUnsubscribe: string | null;
  listUnsubscribePost: string | null;
  at: Timestamp;
}

/**
 * Records a message from the sender (made on its first): its name, unsubscribe headers and feed as the
 * latest message gives them, one more message. The row, and whether this was its first message.
 */
export async function recordSenderMessage(
  db: Kysely<Database>,
  accountId: number,
  seen: SenderSeen,
): Promise<{ id: number; first: boolean }> {
  const inserted = await db
    .insertInto('newsletter_senders')
    .values({
      account_id: accountId,
      address: seen.address,
      name: seen.name,
      feed_id: seen.feedId,
      list_unsubscribe: seen.listUnsubscribe,
      list_unsubscribe_post: seen.listUnsubscribePost,
      messages: 1,
      first_at: seen.at,
      last_at: seen.at,
    })
    .onConflict((oc) => oc.columns(['account_id', 'address']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted !== undefined) return { id: inserted.id, first: true };
  const updated = await db
    .updateTable('newsletter_senders')
    .set((eb) => ({
      name: seen.name,
      feed_id: seen.feedId,
      list_unsubscribe: seen.listUnsubscribe,
      list_unsubscribe_post: seen.listUnsubscribePost,
      messages: eb('messages', '+', 1),
      last_at: seen.at,
    }))
    .where('account_id', '=', accountId)
    .where('address', '=', seen.address)
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: updated.id, first: false };
}

/** A sender with the subscription that tunes it, as `tidings newsletters list` shows it. */
export interface SenderView {
  id: number;
  address: string;
  /** The reader's name for it (the subscription's), else the From display name, else the address. */
  name: string;
  messages: number;
  lastAt: Timestamp;
  listUnsubscribe: string | null;
  listUnsubscribePost: string | null;
  /** Its subscription's mute (null: not muted, or no subscription any more). */
  mutedUntil: Timestamp | null;
  /** Its subscription (what the Feeds page and `feed set` tune); null when removed. */
  subscriptionId: number | null;
  /** When the reader last unsubscribed through Tidings, and how; null: never. */
  unsubscribedAt: Timestamp | null;
  unsubscribedHow: 'one-click' | 'mailto' | 'link' | null;
  /** Its subscription's share of a digest as stored (null: the default; no subscription: null too). */
  perDigest: number | null;
  priority: FeedPriority | null;
}

/** The account's senders (or only the one `onlySender`), the latest first. */
export async function sendersOfAccount(
  db: Kysely<Database>,
  accountId: number,
  onlySender?: number,
): Promise<SenderView[]> {
  const rows = await db
    .selectFrom('newsletter_senders as n')
    .leftJoin('feeds as f', 'f.id', 'n.feed_id')
    .leftJoin('subscriptions as s', (join) =>
      join.onRef('s.feed_id', '=', 'n.feed_id').onRef('s.account_id', '=', 'n.account_id'),
    )
    .select([
      'n.id',
      'n.address',
      'n.name',
      's.title as subscriptionTitle',
      'n.messages',
      'n.last_at as lastAt',
      'n.list_unsubscribe as listUnsubscribe',
      'n.list_unsubscribe_post as listUnsubscribePost',
      's.muted_until as mutedUntil',
      's.id as subscriptionId',
      'n.unsubscribed_at as unsubscribedAt',
      'n.unsubscribed_how as unsubscribedHow',
      's.per_digest as perDigest',
      's.priority',
    ])
    .where('n.account_id', '=', accountId)
    .$if(onlySender !== undefined, (q) => q.where('n.id', '=', onlySender ?? 0))
    .orderBy('n.last_at', 'desc')
    .orderBy('n.id', 'desc')
    .execute();
  return rows.map(({ subscriptionTitle, name, ...r }) => ({
    ...r,
    name: subscriptionTitle ?? name ?? r.address,
  }));
}

/** The sender a subscription of the account tunes (the id `newsletters list` prints); null: none. */
export async function senderOfSubscription(
  db: Kysely<Database>,
  accountId: number,
  subscriptionId: number,
): Promise<SenderView | null> {
  const sub = await db
    .selectFrom('subscriptions')
    .select('feed_id')
    .where('id', '=', subscriptionId)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  if (sub === undefined) return null;
  const row = await db
    .selectFrom('newsletter_senders')
    .select('id')
    .where('account_id', '=', accountId)
    .where('feed_id', '=', sub.feed_id)
    .executeTakeFirst();
  if (row === undefined) return null;
  return (await sendersOfAccount(db, accountId, row.id))[0] ?? null;
}

/** Records that the reader unsubscribed from the sender through Tidings, and how. */
export async function recordUnsubscribed(
  db: Kysely<Database>,
  accountId: number,
  senderId: number,
  how: 'one-click' | 'mailto' | 'link',
  at: Timestamp,
): Promise<void> {
  await db
    .updateTable('newsletter_senders')
    .set({ unsubscribed_at: at, unsubscribed_how: how })
    .where('account_id', '=', accountId)
    .where('id', '=', senderId)
    .execute();
}
