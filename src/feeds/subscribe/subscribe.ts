import type { Kysely } from 'kysely';
import { TidingsError } from '../../errors.js';
import { MAX_URL_LENGTH } from '../../queue/url.js';
import { lockAccount } from '../../store/accounts.js';
import { type Engine, now } from '../../store/db.js';
import { newestFeedItemAt } from '../../store/feedItems.js';
import { queuedFromFeedSince } from '../../store/queueItems.js';
import { type FeedRow, claimFeed, feedById, findOrCreateFeed } from '../../store/feeds.js';
import { transaction } from '../../store/precompiled.js';
import type { Database } from '../../store/schema.js';
import {
  type SubscriptionRow,
  countSubscriptions,
  createSubscription,
  setFetchOriginal,
  subscriptionById,
  updateSubscriptionFilters,
} from '../../store/subscriptions.js';
import { fillSubscription } from '../queueing.js';
import { discoverFeeds } from './discover.js';
import { compileFilter } from '../filters.js';
import { DEFAULT_POLLER_OPTIONS } from '../poller.js';
import { workerId } from '../../lib/workers.js';
import { withoutBidiControls } from '../../lib/bidi.js';
import { type RefreshDeps, currentTime } from '../deps.js';
import { refreshFeed } from '../refresh.js';
import { resolveHttpUrl } from '../parse/urls.js';
import { subscriptionLimitError } from './limits.js';

/** A feed discovery found and read: the URL to subscribe to, and its title. */
export interface FoundFeed {
  url: string;
  title: string;
}

export interface Subscribed {
  subscription: SubscriptionRow;
  feed: FeedRow;
  /** False when the account already followed this feed. */
  created: boolean;
  /** Other feeds the page offered, for a chooser. */
  alternatives: FoundFeed[];
  /** How many of the feed's items this subscribing put in the queue (0 when it was followed already). */
  queued: number;
  /** When the feed's newest dated item was published (ISO), or null when it has none (or was not read). */
  newestItemAt: string | null;
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
  /** Read the pages of the feed's items too ("fetch original content"); off unless given. */
  fetchOriginal?: boolean | undefined;
  /** Skip discovery and the first fetch: the URL is a feed (OPML import); the poller fetches it. */
  trusted?: boolean;
  /**
   * Skip discovery, not the first fetch: the feed the caller's own findFeeds just found and read (`url` is
   * then ignored), so finding it again would only fetch it once more.
   */
  found?: FoundFeed | undefined;
}

/**
 * Subscribes an (already authorised) account to a feed: discovers the feed behind a page, records the
 * subscription with its filters (the feed, the subscription and its filters in one transaction), and
 * queues what the backfill window allows: for a feed Tidings already polls, from the items it knows; for
 * a new feed, by fetching it now. Throws TidingsError: invalid_input for a bad filter or (trusted) a URL
 * that is not http(s), source_failed when no feed can be found or read at the URL, limit_reached when the
 * account follows as many feeds as it may (the feed is then neither created nor followed).
 */
export async function subscribe(
  deps: RefreshDeps,
  accountId: number,
  input: SubscribeInput,
): Promise<Subscribed> {
  const filters = checkFilters(input.include, input.exclude);
  let found: FoundFeed;
  let alternatives: FoundFeed[] = [];
  if (input.found !== undefined) found = input.found;
  else if (input.trusted === true) found = { url: trustedFeedUrl(input.url), title: '' };
  else [found, ...alternatives] = await findFeeds(deps, input.url);
  const { url } = found;
  const given = withoutBidiControls(input.title ?? '').trim();
  const title = given || found.title;
  const at = currentTime(deps).toISOString();
  const { feed, subscription, created } = await transaction(deps.store.db, async (trx) => {
    const room = await subscriptionRoom(trx, deps.store.engine, accountId, deps.maxSubscriptions);
    const row = await findOrCreateFeed(trx, {
      url,
      title: title || url,
      // Only an absolute http(s) URL: an imported file is whatever another program (or person) wrote.
      siteUrl: resolveHttpUrl(input.siteUrl ?? undefined, null),
      at,
    });
    const made = await createSubscription(trx, accountId, {
      feedId: row.id,
      title: given || null,
      folder: input.folder ?? null,
      ...filters,
      ...(input.fetchOriginal === true ? { fetchOriginal: true } : {}),
      at,
    });
    // Rolls the new feed back too: nothing is left of a refused subscription.
    if (made.created && room === 0) throw subscriptionLimitError(deps.maxSubscriptions);
    // Following the feed already: filters given again replace its own.
    if (!made.created && (filters.include !== null || filters.exclude !== null)) {
      await updateSubscriptionFilters(trx, accountId, made.subscription.id, filters);
    }
    if (!made.created && input.fetchOriginal === true) {
      await setFetchOriginal(trx, accountId, made.subscription.id, true);
    }
    return { feed: row, ...made };
  });
  let queued = 0;
  if (subscription.backfilled_at === null) {
    // The queue's own clock (queue_items.created_at is written with it), not the deps' injected one.
    const since = now();
    await firstFill(deps, subscription, input.trusted === true);
    queued = await queuedFromFeedSince(deps.store.db, accountId, feed.id, since);
  }
  const fresh = (await feedById(deps.store.db, feed.id)) ?? feed;
  const sub = (await subscriptionById(deps.store.db, accountId, subscription.id)) ?? subscription;
  const newestItemAt = await newestFeedItemAt(deps.store.db, feed.id);
  return { subscription: sub, feed: fresh, created, alternatives, queued, newestItemAt };
}

/**
 * How many more feeds the account may follow (TIDINGS_MAX_SUBSCRIPTIONS), read under its lock so that two
 * subscribing requests cannot both take the last place: call it first in the transaction that subscribes.
 * On PostgreSQL the account's row lock (as a digest build takes it; queue_version stays); on SQLite the
 * write transaction holds the database already. Throws account_gone when there is no such account.
 */
export async function subscriptionRoom(
  trx: Kysely<Database>,
  engine: Engine,
  accountId: number,
  limit: number,
): Promise<number> {
  if ((await lockAccount(trx, engine, accountId)) === null) {
    throw new TidingsError('account_gone', `account ${accountId} no longer exists`);
  }
  return Math.max(0, limit - (await countSubscriptions(trx, accountId)));
}

/**
 * The feeds behind a URL (a feed, or a web page linking to feeds), each fetched and read, in the page's
 * order. Throws TidingsError source_failed, in words for the person who asked, when there is none.
 */
export async function findFeeds(
  deps: Pick<RefreshDeps, 'fetch'>,
  input: string,
): Promise<[FoundFeed, ...FoundFeed[]]> {
  const { policy, maxBytes, connectTimeoutMs, requestTimeoutMs, userAgent } = deps.fetch;
  const found = await discoverFeeds(input, {
    policy,
    maxBytes,
    fetchOptions: { connectTimeoutMs, requestTimeoutMs, userAgent },
  });
  if (found.kind !== 'found') throw new TidingsError('source_failed', found.message, { facts: found.facts });
  const [first, ...rest] = found.candidates.map((c) => ({ url: c.url, title: c.title }));
  if (first === undefined) throw new TidingsError('source_failed', `no feed found at ${input.trim()}`);
  return [first, ...rest];
}

/**
 * A trusted URL (an OPML file's): taken as it is, but only http(s) and no longer than a queue takes a URL
 * (a longer one could not be indexed). Throws TidingsError invalid_input.
 */
export function trustedFeedUrl(input: string): string {
  const url = input.trim();
  if (!/^https?:\/\//i.test(url))
    throw new TidingsError('invalid_input', `not an http(s) feed URL: ${url}`, {
      facts: { reason: 'feed_url_invalid' },
    });
  if (url.length > MAX_URL_LENGTH) {
    throw new TidingsError(
      'invalid_input',
      `the feed URL is ${url.length} characters long; at most ${MAX_URL_LENGTH} are allowed`,
      { facts: { reason: 'feed_url_too_long', max: MAX_URL_LENGTH } },
    );
  }
  return url;
}

/** Validates include / exclude filters (invalid_input when one cannot run); empty ones become null. */
export function checkFilters(
  include: string | null | undefined,
  exclude: string | null | undefined,
): { include: string | null; exclude: string | null } {
  compileFilter(include);
  compileFilter(exclude);
  return { include: include?.trim() || null, exclude: exclude?.trim() || null };
}

/**
 * Queues the backfill window for a new subscription: from the items Tidings has when the feed was fetched
 * before, else by fetching it now (unless `trusted`: the poller does it). When another worker holds the
 * feed's lease, that worker fills the subscription as it stores the fetch; when a fetch fails, the first
 * one that succeeds does. Either way the window is queued exactly once (see backfill.ts).
 */
async function firstFill(deps: RefreshDeps, subscription: SubscriptionRow, trusted: boolean): Promise<void> {
  if ((await fillSubscription(deps, subscription)) !== 'unfetched' || trusted) return;
  const t = currentTime(deps).getTime();
  const owner = workerId();
  const claimed = await claimFeed(deps.store.db, subscription.feed_id, {
    owner,
    now: new Date(t).toISOString(),
    leaseUntil: new Date(t + DEFAULT_POLLER_OPTIONS.leaseMs).toISOString(),
  });
  if (claimed !== null) await refreshFeed(deps, claimed, owner);
}
