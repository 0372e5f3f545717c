import { AppError } from '../errors.js';
import { addToQueue } from '../queue/add.js';
import { now as nowIso } from '../store/db.js';
import { recentFeedItems } from '../store/feedItems.js';
import { type FeedRow, claimFeed, feedById, findOrCreateFeed } from '../store/feeds.js';
import {
  type SubscriptionRow,
  createSubscription,
  subscriptionById,
  updateSubscriptionFilters,
} from '../store/subscriptions.js';
import { discoverFeeds } from './discover.js';
import { FilterError, compileFilter, passesFilters } from './filters.js';
import { workerId } from './poller.js';
import { type RefreshDeps, refreshFeed } from './refresh.js';
import { resolveHttpUrl } from './urls.js';

/** Why a subscription could not be made, in plain words for the person who asked. */
export class SubscribeError extends Error {
  override name = 'SubscribeError';
}

export interface Subscribed {
  subscription: SubscriptionRow;
  feed: FeedRow;
  /** False when the account already followed this feed. */
  created: boolean;
  /** Other feeds the page offered, for a chooser. */
  alternatives: { url: string; title: string }[];
}

export interface SubscribeInput {
  /** A feed URL or a web page that links to feeds. */
  url: string;
  title?: string | undefined;
  include?: string | undefined;
  exclude?: string | undefined;
  folder?: string | null | undefined;
  /** The site the feed belongs to, when the caller knows it (OPML's htmlUrl); the feed's own wins once read. */
  siteUrl?: string | null | undefined;
  /** Skip discovery and the first fetch: the URL is a feed (OPML import); the poller fetches it. */
  trusted?: boolean;
}

/**
 * Subscribes an (already authorised) account to a feed: discovers the feed behind a page, records the
 * subscription, and queues what the backfill window allows: for a feed Tidings already polls, from
 * the items it knows; for a new feed, by fetching it now.
 */
export async function subscribe(
  deps: RefreshDeps,
  accountId: number,
  input: SubscribeInput,
): Promise<Subscribed> {
  const filters = checkFilters(input.include, input.exclude);
  let url = input.url.trim();
  let title = input.title?.trim() ?? '';
  let alternatives: { url: string; title: string }[] = [];
  if (input.trusted !== true) {
    const { policy, maxBytes, connectTimeoutMs, requestTimeoutMs, userAgent } = deps.fetch;
    const found = await discoverFeeds(url, {
      policy,
      maxBytes,
      fetchOptions: { connectTimeoutMs, requestTimeoutMs, userAgent },
    });
    if (found.kind !== 'found') throw new SubscribeError(found.message);
    const [first, ...rest] = found.candidates;
    if (first === undefined) throw new SubscribeError(`no feed found at ${url}`);
    url = first.url;
    title ||= first.title;
    alternatives = rest.map((c) => ({ url: c.url, title: c.title }));
  } else if (!/^https?:\/\//i.test(url)) {
    throw new SubscribeError(`not an http(s) feed URL: ${url}`);
  }
  const at = nowIso();
  const feed = await findOrCreateFeed(deps.store.db, {
    url,
    title: title || url,
    // Only an absolute http(s) URL: an imported file is whatever another program (or person) wrote.
    siteUrl: resolveHttpUrl(input.siteUrl ?? undefined, null),
    at,
  });
  const { subscription, created } = await createSubscription(deps.store.db, accountId, {
    feedId: feed.id,
    title: input.title?.trim() || null,
    folder: input.folder ?? null,
    at,
  });
  if (filters.include !== null || filters.exclude !== null) {
    await updateSubscriptionFilters(deps.store.db, accountId, subscription.id, filters);
  }
  if (created && input.trusted !== true) await backfill(deps, accountId, feed, filters);
  const fresh = (await feedById(deps.store.db, feed.id)) ?? feed;
  const sub = (await subscriptionById(deps.store.db, accountId, subscription.id)) ?? subscription;
  return { subscription: sub, feed: fresh, created, alternatives };
}

/** Validates include / exclude filters; empty ones become null. */
export function checkFilters(
  include: string | null | undefined,
  exclude: string | null | undefined,
): { include: string | null; exclude: string | null } {
  try {
    compileFilter(include);
    compileFilter(exclude);
  } catch (err) {
    if (err instanceof FilterError) throw new SubscribeError(err.message);
    throw err;
  }
  return { include: include?.trim() || null, exclude: exclude?.trim() || null };
}

async function backfill(
  deps: RefreshDeps,
  accountId: number,
  feed: FeedRow,
  filters: { include: string | null; exclude: string | null },
): Promise<void> {
  if (feed.last_success_at === null) {
    // A new feed: its first fetch queues the recent items for every subscriber, this one included.
    const t = Date.now();
    const owner = workerId();
    const claimed = await claimFeed(deps.store.db, feed.id, {
      owner,
      now: new Date(t).toISOString(),
      leaseUntil: new Date(t + 5 * 60_000).toISOString(),
    });
    if (claimed !== null) await refreshFeed(deps, claimed, owner);
    return;
  }
  const since = new Date(Date.now() - deps.backfillHours * 3_600_000).toISOString();
  const include = compileFilter(filters.include);
  const exclude = compileFilter(filters.exclude);
  for (const item of await recentFeedItems(deps.store.db, feed.id, since)) {
    if (item.url === null || !passesFilters(item, include, exclude)) continue;
    try {
      await deps.store.db.transaction().execute((trx) =>
        addToQueue(
          trx,
          accountId,
          {
            url: item.url ?? undefined,
            title: item.title || undefined,
            source: 'feed',
            feedId: feed.id,
            summary: item.summary || null,
            publishedAt: item.published_at,
          },
          { limit: deps.queueLimit },
        ),
      );
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
    }
  }
}
