import { TidingsError } from '../../errors.js';
import type { OpmlOutline } from './opml.js';
import { type FeedRow, claimFeed, feedById, findOrCreateFeed } from '../../store/feeds.js';
import { transaction } from '../../store/precompiled.js';
import {
  type SubscriptionRow,
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
import { type RefreshDeps, currentTime } from '../deps.js';
import { refreshFeed } from '../refresh.js';
import { resolveHttpUrl } from '../parse/urls.js';

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
 * that is not http(s), source_failed when no feed can be found or read at the URL.
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
  else if (input.trusted === true) found = { url: httpUrl(input.url), title: '' };
  else [found, ...alternatives] = await findFeeds(deps, input.url);
  const { url } = found;
  const title = input.title?.trim() || found.title;
  const at = currentTime(deps).toISOString();
  const { feed, subscription, created } = await transaction(deps.store.db, async (trx) => {
    const row = await findOrCreateFeed(trx, {
      url,
      title: title || url,
      // Only an absolute http(s) URL: an imported file is whatever another program (or person) wrote.
      siteUrl: resolveHttpUrl(input.siteUrl ?? undefined, null),
      at,
    });
    const made = await createSubscription(trx, accountId, {
      feedId: row.id,
      title: input.title?.trim() || null,
      folder: input.folder ?? null,
      ...filters,
      ...(input.fetchOriginal === true ? { fetchOriginal: true } : {}),
      at,
    });
    // Following the feed already: filters given again replace its own.
    if (!made.created && (filters.include !== null || filters.exclude !== null)) {
      await updateSubscriptionFilters(trx, accountId, made.subscription.id, filters);
    }
    if (!made.created && input.fetchOriginal === true) {
      await setFetchOriginal(trx, accountId, made.subscription.id, true);
    }
    return { feed: row, ...made };
  });
  if (subscription.backfilled_at === null) await firstFill(deps, subscription, input.trusted === true);
  const fresh = (await feedById(deps.store.db, feed.id)) ?? feed;
  const sub = (await subscriptionById(deps.store.db, accountId, subscription.id)) ?? subscription;
  return { subscription: sub, feed: fresh, created, alternatives };
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
  if (found.kind !== 'found') throw new TidingsError('source_failed', found.message);
  const [first, ...rest] = found.candidates.map((c) => ({ url: c.url, title: c.title }));
  if (first === undefined) throw new TidingsError('source_failed', `no feed found at ${input.trim()}`);
  return [first, ...rest];
}

/** A trusted URL (an OPML file's): taken as it is, but only http(s). */
function httpUrl(input: string): string {
  const url = input.trim();
  if (!/^https?:\/\//i.test(url)) throw new TidingsError('invalid_input', `not an http(s) feed URL: ${url}`);
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

export interface OpmlImport {
  added: number;
  /** Feeds the account already followed. */
  known: number;
  refused: { url: string; message: string }[];
}

/**
 * Subscribes an (already authorised) account to every feed of an OPML file, titles and folders kept:
 * trusted, so no discovery and no fetch now (the poller fetches the new feeds). A feed refused for a
 * reason the user can read is reported and the rest go on.
 */
export async function importOpml(
  deps: RefreshDeps,
  accountId: number,
  outlines: readonly OpmlOutline[],
): Promise<OpmlImport> {
  const result: OpmlImport = { added: 0, known: 0, refused: [] };
  for (const o of outlines) {
    try {
      const r = await subscribe(deps, accountId, {
        url: o.url,
        title: o.title,
        folder: o.folder,
        siteUrl: o.htmlUrl,
        trusted: true,
      });
      if (r.created) result.added++;
      else result.known++;
    } catch (err) {
      if (!(err instanceof TidingsError)) throw err;
      result.refused.push({ url: o.url, message: err.message });
    }
  }
  return result;
}
