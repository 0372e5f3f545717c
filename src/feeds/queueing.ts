import type { Kysely } from 'kysely';
import { TidingsError } from '../errors.js';
import type { SaveOutcome } from '../lib/metrics.js';
import { MAX_URL_LENGTH } from '../queue/url.js';
import { type QueueInput, type QueueItem, checkItem, enqueueMany } from '../queue/enqueue.js';
import type { Offer } from '../queue/plan.js';
import { recentFeedItems } from '../store/feedItems.js';
import { type FeedRow, lockFeed } from '../store/feeds.js';
import type { Database } from '../store/schema.js';
import {
  type SubscriptionRow,
  markBackfilled,
  recordSkippedItems,
  subscriptionById,
} from '../store/subscriptions.js';
import { type RefreshDeps, currentTime } from './deps.js';
import { type Filter, compileFilter, passesFilters } from './filters.js';
import type { FeedItem } from './parse/parse.js';

/**
 * Which item goes to which queue: the new items of a fetch go to the subscriptions that had their first
 * fill, and a subscription without it gets its backfill window instead. Both run in a transaction that
 * holds the feed's row lock (lockFeed), so a subscription's first fill happens exactly once, whichever
 * worker stores the feed's first fetch and whenever the subscription was made.
 *
 * The shapes between a feed entry and a queue row: the parser's `FeedItem` (or, for a backfill window,
 * the remembered feed_items row) becomes a `QueueInput` for each subscriber whose filters it passes; the
 * queue checks it into a `QueueItem` and writes it as a queue_items row (see src/queue/enqueue.ts).
 */

const HOUR = 3_600_000;

/** What offering items to queues came to: how many of each outcome (added, already_queued, queue_full…). */
export type Offered = Partial<Record<SaveOutcome, number>>;

/** Counts what was offered as saves from feeds: call it once the transaction that queued them committed. */
export function countOffered(deps: Pick<RefreshDeps, 'metrics'>, offered: Offered): void {
  for (const [outcome, n] of Object.entries(offered) as [SaveOutcome, number][])
    deps.metrics?.saved('feed', outcome, n);
}

/**
 * What the new items of a fetch (`fresh`, oldest first; already remembered) offer to the feed's
 * subscriptions (`rows`, read under the feed's lock): to those that had their first fill, on the feed's
 * first successful fetch, the items published within the backfill window (undated ones are only
 * remembered: nothing says they are recent); afterwards, every new item unless its date is older than the
 * window before the last success (an archive the feed suddenly republishes must not flood queues). A
 * subscription without its first fill gets the backfill window instead, this fetch included (marked as
 * filled here). Queue the offers with enqueueOffers, in the same transaction: it answers what came of them
 * (`added`: how many were not already waiting); an item without a link is counted as skipped on the
 * subscription.
 */
export async function offerNewItems(
  deps: RefreshDeps,
  db: Kysely<Database>,
  feed: FeedRow,
  fresh: readonly FeedItem[],
  now: Date,
  rows: readonly SubscriptionRow[],
): Promise<Offers> {
  const firstFetch = feed.last_success_at === null;
  const since =
    (firstFetch ? now.getTime() : Date.parse(feed.last_success_at ?? '')) - deps.backfillHours * HOUR;
  const subscribers = rows.map((row) => subscriber(deps, row));
  const filled = subscribers.filter((s) => s.row.backfilled_at !== null);
  const offers = new Offers(deps, feed.id);
  for (const item of fresh) {
    const date = item.published?.getTime() ?? (firstFetch ? null : now.getTime());
    if (date === null || date < since) continue;
    for (const s of filled) {
      if (!passesFilters(item, s.include, s.exclude)) continue;
      offers.offer(s.row, {
        url: item.url,
        title: item.title,
        summary: item.summary,
        publishedAt: item.published?.toISOString() ?? null,
        imageUrl: item.image,
      });
    }
  }
  await offerBackfills(deps, db, feed.id, subscribers, offers);
  return offers;
}

/**
 * Queues the offers of one or several feeds' fetches in the caller's transaction, in a handful of
 * statements whatever their number (see Offers.enqueueAll); what came of each feed's offers, in order.
 */
export function enqueueOffers(
  deps: RefreshDeps,
  db: Kysely<Database>,
  offers: readonly Offers[],
): Promise<Offered[]> {
  return Offers.enqueueAll(deps, db, offers);
}

/**
 * A new subscription's first fill from what Tidings already has of the feed, without fetching it:
 * `unfetched` when the feed has had no successful fetch yet (then whoever stores its first one fills the
 * subscription: it takes the feed's lock after this transaction, and so sees the subscription).
 */
export async function fillSubscription(
  deps: RefreshDeps,
  subscription: Pick<SubscriptionRow, 'id' | 'account_id' | 'feed_id'>,
): Promise<'filled' | 'already_filled' | 'unfetched'> {
  let offered: Offered = {};
  const outcome = await deps.store.db.transaction().execute(async (trx) => {
    const feed = await lockFeed(trx, subscription.feed_id);
    if (feed?.lastSuccessAt == null) return 'unfetched';
    const row = await subscriptionById(trx, subscription.account_id, subscription.id);
    if (row === null || row.backfilled_at !== null) return 'already_filled';
    const offers = new Offers(deps, row.feed_id);
    await offerBackfills(deps, trx, row.feed_id, [subscriber(deps, row)], offers);
    offered = await offers.enqueue(trx);
    return 'filled';
  });
  countOffered(deps, offered);
  return outcome;
}

/**
 * Offers the backfill window of every subscriber that has not had its first fill, each marked as filled:
 * the remembered items of the feed published at most `backfillHours` before the subscription was made,
 * or later (the items of the fetch being stored included, when called from it), that pass its filters.
 */
async function offerBackfills(
  deps: RefreshDeps,
  db: Kysely<Database>,
  feedId: number,
  subscribers: readonly Subscriber[],
  offers: Offers,
): Promise<void> {
  const at = currentTime(deps).toISOString();
  for (const s of subscribers) {
    if (s.row.backfilled_at !== null || !(await markBackfilled(db, s.row.id, at))) continue;
    const since = new Date(Date.parse(s.row.created_at) - deps.backfillHours * HOUR).toISOString();
    for (const item of await recentFeedItems(db, feedId, since)) {
      if (!passesFilters(item, s.include, s.exclude)) continue;
      offers.offer(s.row, {
        url: item.url,
        title: item.title,
        summary: item.summary,
        publishedAt: item.published_at,
        imageUrl: item.image_url,
      });
    }
  }
}

/** A subscription with its filters compiled. */
interface Subscriber {
  row: SubscriptionRow;
  include: Filter | null;
  exclude: Filter | null;
}

/** A stored filter that no longer compiles (set before a stricter check existed) is ignored, and logged. */
function subscriber(deps: RefreshDeps, row: SubscriptionRow): Subscriber {
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

const NO_LINK = 'it has no link';

/** Why an offered item could not be queued, in plain words for `feed list` and the Feeds page. */
function skipReason(err: TidingsError): string {
  switch (err.kind) {
    case 'url_missing':
      return NO_LINK;
    case 'url_invalid':
      return 'its link is not a web address (http or https)';
    case 'url_too_long':
      return `its link is longer than ${MAX_URL_LENGTH.toLocaleString('en')} characters`;
    case 'queue_full':
      return 'the queue was full';
    default:
      return err.message;
  }
}

/**
 * A feed's items offered to queues in one transaction, per account in the order offered. An item that
 * cannot be queued (no link, a link the queue refuses, a full queue) skips that subscription, the feed goes
 * on, and the skip is counted on the subscription with its reason (recordSkippedItems), in the same
 * transaction: `feed list` and the Feeds page show it.
 */
export class Offers {
  /** Per account (one subscription each: an account follows a feed once), what is to be queued. */
  private readonly byAccount = new Map<number, { subscriptionId: number; items: QueueItem[] }>();
  private readonly skips = new Map<number, { accountId: number; count: number; reason: string }>();
  private readonly offered: Offered = {};

  constructor(
    private readonly deps: RefreshDeps,
    private readonly feedId: number,
  ) {}

  offer(
    subscription: Pick<SubscriptionRow, 'id' | 'account_id'>,
    entry: {
      url: string | null;
      title: string;
      summary: string;
      publishedAt: string | null;
      imageUrl: string | null;
    },
  ) {
    const { id: subscriptionId, account_id: accountId } = subscription;
    if (entry.url === null) {
      this.count('url_missing');
      this.skipped(accountId, subscriptionId, NO_LINK);
      return;
    }
    const input: QueueInput = {
      url: entry.url,
      title: entry.title || undefined,
      source: 'feed',
      feedId: this.feedId,
      summary: entry.summary || null,
      publishedAt: entry.publishedAt,
      imageUrl: entry.imageUrl,
    };
    let item: QueueItem;
    try {
      item = checkItem(input);
    } catch (err) {
      if (!(err instanceof TidingsError)) throw err;
      this.count(err.kind);
      this.skipped(accountId, subscriptionId, skipReason(err));
      return;
    }
    const offered = this.byAccount.get(accountId);
    if (offered === undefined) this.byAccount.set(accountId, { subscriptionId, items: [item] });
    else offered.items.push(item);
  }

  /** Queues what was offered (see enqueueAll); what came of every offer, refusals included. */
  async enqueue(db: Kysely<Database>): Promise<Offered> {
    return (await Offers.enqueueAll(this.deps, db, [this]))[0] ?? {};
  }

  /**
   * Queues what several feeds offered, one `enqueueMany` for all their accounts (locked once each, in
   * account order, so two workers adding to the same accounts lock them in the same order), each account's
   * items in the order of `all` and, within a feed, as offered; then counts the skips on their
   * subscriptions. What came of each feed's offers, refusals included, in the order of `all`.
   */
  static async enqueueAll(
    deps: RefreshDeps,
    db: Kysely<Database>,
    all: readonly Offers[],
  ): Promise<Offered[]> {
    const queues = new Map<number, { offers: Offer[]; from: { offers: Offers; subscriptionId: number }[] }>();
    for (const offers of all) {
      for (const [accountId, { subscriptionId, items }] of offers.byAccount) {
        let queue = queues.get(accountId);
        if (queue === undefined) queues.set(accountId, (queue = { offers: [], from: [] }));
        for (const item of items) {
          queue.offers.push({ item, limit: deps.queueLimit });
          queue.from.push({ offers, subscriptionId });
        }
      }
    }
    const accounts = [...queues].sort(([a], [b]) => a - b);
    const done =
      accounts.length === 0
        ? []
        : await enqueueMany(
            db,
            deps.store.engine,
            accounts.map(([accountId, q]) => ({ accountId, offers: q.offers })),
          );
    accounts.forEach(([accountId, q], a) => {
      const results = done[a]?.results ?? [];
      q.from.forEach(({ offers, subscriptionId }, i) => {
        const r = results[i];
        if (r === undefined) throw new Error('no answer for a queued feed item');
        if ('outcome' in r) offers.count(r.outcome);
        else {
          offers.count(r.error.kind);
          offers.skipped(accountId, subscriptionId, skipReason(r.error));
        }
      });
    });
    const at = currentTime(deps).toISOString();
    for (const offers of all) {
      for (const [subscriptionId, { accountId, count, reason }] of offers.skips) {
        await recordSkippedItems(db, accountId, subscriptionId, { count, reason, at });
      }
    }
    return all.map((offers) => offers.offered);
  }

  private count(outcome: SaveOutcome): void {
    this.offered[outcome] = (this.offered[outcome] ?? 0) + 1;
  }

  private skipped(accountId: number, subscriptionId: number, reason: string): void {
    this.deps.log.debug({ feedId: this.feedId, accountId, subscriptionId, reason }, 'feed item not queued');
    const skip = this.skips.get(subscriptionId);
    if (skip === undefined) this.skips.set(subscriptionId, { accountId, count: 1, reason });
    else {
      skip.count++;
      skip.reason = reason;
    }
  }
}
