import type { Kysely, Selectable } from 'kysely';
import type { FeedFailure } from '../errors.js';
import { type PerDigest, perDigestOf } from '../lib/digestShare.js';
import type { Database, FeedPriority, SubscriptionsTable, Timestamp } from './schema.js';

export type SubscriptionRow = Selectable<SubscriptionsTable>;

/** A subscription with what a listing shows of its feed. */
export interface SubscriptionView {
  id: number;
  feedId: number;
  url: string;
  title: string;
  siteUrl: string | null;
  folder: string | null;
  status: string;
  lastFetchedAt: Timestamp | null;
  lastError: string | null;
  /** Why the last fetch failed, as a code, and the HTTP status for http_status (null: no code kept). */
  lastErrorReason: FeedFailure | null;
  lastErrorStatus: number | null;
  /** Whether the feed's last document was not well-formed XML and was read by the recovering parse. */
  readLeniently: boolean;
  nextFetchAt: Timestamp;
  includeFilter: string | null;
  excludeFilter: string | null;
  /** Whether the pages of the feed's items are read too (subscriptions.fetch_original). */
  fetchOriginal: boolean;
  itemCount: number;
  /** Items its rules would have queued that could not be (no link, a link the queue refuses, a full queue). */
  skippedItems: number;
  /** Why the last of them was not queued, in plain words; null when none was skipped. */
  lastSkipReason: string | null;
  lastSkippedAt: Timestamp | null;
  /** Entries of the feed a digest shows (lib/digestShare.ts): the default as its number, then perDigestDefault. */
  perDigest: PerDigest;
  perDigestDefault: boolean;
  priority: FeedPriority;
  /** "Mute for a week": until when; null when never muted or unmuted (a past time: the mute has ended). */
  mutedUntil: Timestamp | null;
}

/**
 * Subscribes the account, its filters in the same row: a worker storing the feed's items never sees the
 * subscription without them. Returns the existing subscription when the account already follows the feed.
 */
export async function createSubscription(
  db: Kysely<Database>,
  accountId: number,
  input: {
    feedId: number;
    title?: string | null;
    folder?: string | null;
    include?: string | null;
    exclude?: string | null;
    fetchOriginal?: boolean;
    at: Timestamp;
  },
): Promise<{ subscription: SubscriptionRow; created: boolean }> {
  const inserted = await db
    .insertInto('subscriptions')
    .values({
      account_id: accountId,
      feed_id: input.feedId,
      title: input.title ?? null,
      folder: input.folder ?? null,
      include_filter: input.include ?? null,
      exclude_filter: input.exclude ?? null,
      fetch_original: input.fetchOriginal === true ? 1 : 0,
      created_at: input.at,
    })
    .onConflict((oc) => oc.columns(['account_id', 'feed_id']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted !== undefined) return { subscription: inserted, created: true };
  const existing = await db
    .selectFrom('subscriptions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('feed_id', '=', input.feedId)
    .executeTakeFirstOrThrow();
  return { subscription: existing, created: false };
}

/** One subscription of a bulk import (createSubscriptions). */
export interface NewSubscription {
  feedId: number;
  title: string | null;
  folder: string | null;
}

/**
 * Subscribes the account to several feeds in one statement, without filters; feeds it already follows are
 * left as they are. Returns the subscriptions made (their ids). Keep `subs` small: four parameters each.
 */
export async function createSubscriptions(
  db: Kysely<Database>,
  accountId: number,
  subs: readonly NewSubscription[],
  at: Timestamp,
): Promise<Pick<SubscriptionRow, 'id' | 'account_id' | 'feed_id'>[]> {
  if (subs.length === 0) return [];
  return db
    .insertInto('subscriptions')
    .values(
      subs.map((s) => ({
        account_id: accountId,
        feed_id: s.feedId,
        title: s.title,
        folder: s.folder,
        created_at: at,
      })),
    )
    .onConflict((oc) => oc.columns(['account_id', 'feed_id']).doNothing())
    .returning(['id', 'account_id', 'feed_id'])
    .execute();
}

/** How many feeds the account follows. */
export async function countSubscriptions(db: Kysely<Database>, accountId: number): Promise<number> {
  const row = await db
    .selectFrom('subscriptions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return row.n;
}

/**
 * Which of these feeds the account follows already: a look-up in the (account_id, feed_id) index per feed,
 * however many the account follows. Keep `feedIds` small: one parameter each.
 */
export async function followedFeedIds(
  db: Kysely<Database>,
  accountId: number,
  feedIds: readonly number[],
): Promise<Set<number>> {
  if (feedIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('subscriptions')
    .select('feed_id')
    .where('account_id', '=', accountId)
    .where('feed_id', 'in', feedIds)
    .execute();
  return new Set(rows.map((r) => r.feed_id));
}

/** Counts items a subscription's rules would have queued and could not, with the reason for the last. */
export async function recordSkippedItems(
  db: Kysely<Database>,
  accountId: number,
  subscriptionId: number,
  skipped: { count: number; reason: string; at: Timestamp },
): Promise<void> {
  await db
    .updateTable('subscriptions')
    .set((eb) => ({
      skipped_items: eb('skipped_items', '+', skipped.count),
      last_skip_reason: skipped.reason,
      last_skipped_at: skipped.at,
    }))
    .where('account_id', '=', accountId)
    .where('id', '=', subscriptionId)
    .execute();
}

/** The account's subscriptions, oldest first: all of them, or `page.limit` from `page.offset`. */
export async function subscriptionsByAccount(
  db: Kysely<Database>,
  accountId: number,
  page?: { offset: number; limit: number },
): Promise<SubscriptionView[]> {
  return db
    .selectFrom('subscriptions as s')
    .innerJoin('feeds as f', 'f.id', 's.feed_id')
    .select((eb) => [
      's.id as id',
      'f.id as feedId',
      'f.url as url',
      eb.fn.coalesce('s.title', 'f.title').as('title'),
      'f.site_url as siteUrl',
      's.folder as folder',
      'f.status as status',
      'f.last_fetched_at as lastFetchedAt',
      'f.last_error as lastError',
      'f.last_error_reason as lastErrorReason',
      'f.last_error_status as lastErrorStatus',
      'f.read_leniently as readLeniently',
      'f.next_fetch_at as nextFetchAt',
      's.include_filter as includeFilter',
      's.exclude_filter as excludeFilter',
      's.fetch_original as fetchOriginal',
      's.skipped_items as skippedItems',
      's.last_skip_reason as lastSkipReason',
      's.last_skipped_at as lastSkippedAt',
      's.per_digest as perDigestColumn',
      's.priority as priority',
      's.muted_until as mutedUntil',
      eb
        .selectFrom('feed_items as i')
        .select((e) => e.fn.countAll<number>().as('n'))
        .whereRef('i.feed_id', '=', 'f.id')
        .as('itemCount'),
    ])
    .where('s.account_id', '=', accountId)
    .orderBy('s.id')
    .$if(page !== undefined, (qb) => qb.limit(page?.limit ?? 0).offset(page?.offset ?? 0))
    .execute()
    .then((rows) =>
      rows.map(({ perDigestColumn, ...r }) => ({
        ...r,
        perDigest: perDigestOf(perDigestColumn),
        perDigestDefault: perDigestColumn === null,
        fetchOriginal: r.fetchOriginal === 1,
        readLeniently: r.readLeniently === 1,
        itemCount: r.itemCount ?? 0,
      })),
    );
}

export async function subscriptionById(
  db: Kysely<Database>,
  accountId: number,
  subscriptionId: number,
): Promise<SubscriptionRow | null> {
  const row = await db
    .selectFrom('subscriptions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', subscriptionId)
    .executeTakeFirst();
  return row ?? null;
}

/**
 * Every subscription to a feed of an account that is not disabled: where its new items fan out to (a
 * disabled account's queue does not grow; once enabled again it gets what comes after).
 */
export async function subscriptionsByFeed(db: Kysely<Database>, feedId: number): Promise<SubscriptionRow[]> {
  return subscriptionsByFeeds(db, [feedId]);
}

/** subscriptionsByFeed for several feeds in one query: their subscriptions in id order. */
export async function subscriptionsByFeeds(
  db: Kysely<Database>,
  feedIds: readonly number[],
): Promise<SubscriptionRow[]> {
  if (feedIds.length === 0) return [];
  return db
    .selectFrom('subscriptions')
    .selectAll()
    .where('feed_id', 'in', feedIds)
    .where('account_id', 'not in', (eb) =>
      eb.selectFrom('accounts').select('accounts.id').where('accounts.disabled_at', 'is not', null),
    )
    .orderBy('id')
    .execute();
}

/**
 * Marks a subscription's first fill as done; true only for the caller that marked it, so that the window is
 * queued once however many workers try (call it in the transaction that queues the window).
 */
export async function markBackfilled(
  db: Kysely<Database>,
  subscriptionId: number,
  at: Timestamp,
): Promise<boolean> {
  const result = await db
    .updateTable('subscriptions')
    .set({ backfilled_at: at })
    .where('id', '=', subscriptionId)
    .where('backfilled_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function deleteSubscription(
  db: Kysely<Database>,
  accountId: number,
  subscriptionId: number,
): Promise<boolean> {
  const result = await db
    .deleteFrom('subscriptions')
    .where('account_id', '=', accountId)
    .where('id', '=', subscriptionId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export async function updateSubscriptionFilters(
  db: Kysely<Database>,
  accountId: number,
  subscriptionId: number,
  filters: { include: string | null; exclude: string | null },
): Promise<boolean> {
  const result = await db
    .updateTable('subscriptions')
    .set({ include_filter: filters.include, exclude_filter: filters.exclude })
    .where('account_id', '=', accountId)
    .where('id', '=', subscriptionId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Sets the reader's own name for a feed (null: the feed's title again); false when there is no such subscription. */
export async function renameSubscription(
  db: Kysely<Database>,
  accountId: number,
  subscriptionId: number,
  title: string | null,
): Promise<boolean> {
  const result = await db
    .updateTable('subscriptions')
    .set({ title })
    .where('account_id', '=', accountId)
    .where('id', '=', subscriptionId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Turns reading the original pages of a feed's items on or off; false when there is no such subscription. */
export async function setFetchOriginal(
  db: Kysely<Database>,
  accountId: number,
  subscriptionId: number,
  on: boolean,
): Promise<boolean> {
  const result = await db
    .updateTable('subscriptions')
    .set({ fetch_original: on ? 1 : 0 })
    .where('account_id', '=', accountId)
    .where('id', '=', subscriptionId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The account's subscription to a feed; null when it follows no such feed. */
export async function subscriptionOfFeed(
  db: Kysely<Database>,
  accountId: number,
  feedId: number,
): Promise<SubscriptionRow | null> {
  const row = await db
    .selectFrom('subscriptions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('feed_id', '=', feedId)
    .executeTakeFirst();
  return row ?? null;
}

/** A change of a feed's share of the digest (lib/digestShare.ts); what is undefined stays. */
export interface ShareChange {
  /** The column's value: null the default, -1 all, else a number of entries. */
  perDigest?: number | null;
  priority?: FeedPriority;
  mutedUntil?: Timestamp | null;
}

/**
 * Changes a subscription's share of the digest; the row as changed, null when there is no such
 * subscription, or (with `ifPerDigest`) when its per_digest is no longer that value: a step of the share
 * (Fewer, More) is a compare-and-set, atomic on both engines without a lock (PostgreSQL checks the WHERE
 * again on the row it waited for), so that two at once apply two steps instead of one.
 */
export async function updateSubscriptionShare(
  db: Kysely<Database>,
  accountId: number,
  subscriptionId: number,
  change: ShareChange,
  condition: { ifPerDigest?: number | null } = {},
): Promise<SubscriptionRow | null> {
  const set = {
    ...(change.perDigest === undefined ? {} : { per_digest: change.perDigest }),
    ...(change.priority === undefined ? {} : { priority: change.priority }),
    ...(change.mutedUntil === undefined ? {} : { muted_until: change.mutedUntil }),
  };
  if (Object.keys(set).length === 0) return subscriptionById(db, accountId, subscriptionId);
  const expected = condition.ifPerDigest;
  let update = db
    .updateTable('subscriptions')
    .set(set)
    .where('account_id', '=', accountId)
    .where('id', '=', subscriptionId);
  if (expected !== undefined) {
    update =
      expected === null ? update.where('per_digest', 'is', null) : update.where('per_digest', '=', expected);
  }
  const row = await update.returningAll().executeTakeFirst();
  return row ?? null;
}
