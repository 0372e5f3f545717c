import type { Kysely } from 'kysely';
import { TidingsError } from '../errors.js';
import { addToQueue } from '../queue/add.js';
import { recentFeedItems } from '../store/feedItems.js';
import { lockFeed } from '../store/feeds.js';
import type { Database, Timestamp } from '../store/schema.js';
import { type SubscriptionRow, markBackfilled, subscriptionById } from '../store/subscriptions.js';
import { type Filter, compileFilter, passesFilters } from './filters.js';
import { type RefreshDeps, currentTime } from './refresh.js';

/**
 * Items going to queues: the new items of a fetch for the subscriptions that had their first fill, and
 * the backfill window for those that have not. Both run in a transaction that holds the feed's row lock
 * (lockFeed), so a subscription's first fill happens exactly once, whichever worker stores the feed's
 * first fetch and whenever the subscription was made.
 */

const HOUR = 3_600_000;

/** An item to queue: from a fetch, or from what Tidings remembers of the feed. */
export interface QueueCandidate {
  url: string | null;
  title: string;
  summary: string;
  publishedAt: Timestamp | null;
}

export interface Addition {
  accountId: number;
  item: QueueCandidate;
}

/** A subscription with its filters compiled. */
export interface Subscriber {
  row: SubscriptionRow;
  include: Filter | null;
  exclude: Filter | null;
}

/** A stored filter that no longer compiles (set before a stricter check existed) is ignored, and logged. */
export function subscriber(deps: RefreshDeps, row: SubscriptionRow): Subscriber {
  return { row, include: safeFilter(deps, row, 'include'), exclude: safeFilter(deps, row, 'exclude') };
}

function safeFilter(deps: RefreshDeps, row: SubscriptionRow, which: 'include' | 'exclude'): Filter | null {
  try {
    return compileFilter(which === 'include' ? row.include_filter : row.exclude_filter);
  } catch (err) {
    deps.log.warn({ err, subscriptionId: row.id, which }, 'ignoring an invalid subscription filter');
    return null;
  }
}

/**
 * The backfill window of every subscriber that has not had its first fill, each marked as filled: the
 * remembered items of the feed published at most `backfillHours` before the subscription was made, or
 * later (the items of the fetch being stored included, when called from it), that pass its filters.
 */
export async function backfillAdditions(
  deps: RefreshDeps,
  db: Kysely<Database>,
  feedId: number,
  subscribers: readonly Subscriber[],
): Promise<Addition[]> {
  const at = currentTime(deps).toISOString();
  const additions: Addition[] = [];
  for (const s of subscribers) {
    if (s.row.backfilled_at !== null || !(await markBackfilled(db, s.row.id, at))) continue;
    const since = new Date(Date.parse(s.row.created_at) - deps.backfillHours * HOUR).toISOString();
    for (const item of await recentFeedItems(db, feedId, since)) {
      if (item.url === null || !passesFilters(item, s.include, s.exclude)) continue;
      additions.push({
        accountId: s.row.account_id,
        item: { url: item.url, title: item.title, summary: item.summary, publishedAt: item.published_at },
      });
    }
  }
  return additions;
}

/** Queues the additions through the queue's one path; how many were added (not already waiting). */
export async function queueAdditions(
  deps: RefreshDeps,
  db: Kysely<Database>,
  feedId: number,
  additions: Addition[],
): Promise<number> {
  // In account order: two workers adding to the same accounts then lock them in the same order.
  additions.sort((a, b) => a.accountId - b.accountId);
  let queued = 0;
  for (const { accountId, item } of additions) {
    if (await queueItem(deps, db, accountId, feedId, item)) queued++;
  }
  return queued;
}

async function queueItem(
  deps: RefreshDeps,
  db: Kysely<Database>,
  accountId: number,
  feedId: number,
  item: QueueCandidate,
): Promise<boolean> {
  try {
    const outcome = await addToQueue(
      db,
      accountId,
      {
        url: item.url ?? undefined,
        title: item.title || undefined,
        source: 'feed',
        feedId,
        summary: item.summary || null,
        publishedAt: item.publishedAt,
      },
      { limit: deps.queueLimit },
    );
    return outcome === 'added';
  } catch (err) {
    // A full queue or a URL the queue refuses skips this item for this account; the feed goes on.
    if (!(err instanceof TidingsError)) throw err;
    deps.log.debug({ feedId, accountId, reason: err.kind }, 'feed item not queued');
    return false;
  }
}

/**
 * A new subscription's first fill from what Tidings already has of the feed, without fetching it:
 * `unfetched` when the feed has had no successful fetch yet (then whoever stores its first one fills the
 * subscription: it takes the feed's lock after this transaction, and so sees the subscription).
 */
export async function fillSubscription(
  deps: RefreshDeps,
  subscription: SubscriptionRow,
): Promise<'filled' | 'already_filled' | 'unfetched'> {
  return deps.store.db.transaction().execute(async (trx) => {
    const feed = await lockFeed(trx, subscription.feed_id);
    if (feed?.lastSuccessAt == null) return 'unfetched';
    const row = await subscriptionById(trx, subscription.account_id, subscription.id);
    if (row === null || row.backfilled_at !== null) return 'already_filled';
    const additions = await backfillAdditions(deps, trx, row.feed_id, [subscriber(deps, row)]);
    await queueAdditions(deps, trx, row.feed_id, additions);
    return 'filled';
  });
}
