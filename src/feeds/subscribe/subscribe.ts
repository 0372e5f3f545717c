import type { OpmlOutline } from './opml.js';
import { type FeedRow, claimFeed, feedById, findOrCreateFeed } from '../../store/feeds.js';
import {
  type SubscriptionRow,
  createSubscription,
  subscriptionById,
  updateSubscriptionFilters,
} from '../../store/subscriptions.js';
import { fillSubscription } from '../queueing.js';
import { discoverFeeds } from './discover.js';
import { FilterError, compileFilter } from '../filters.js';
import { DEFAULT_POLLER_OPTIONS } from '../poller.js';
import { workerId } from '../../lib/workers.js';
import { type RefreshDeps, currentTime, refreshFeed } from '../refresh.js';
import { resolveHttpUrl } from '../parse/urls.js';

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
  /**
   * Skip discovery, not the first fetch: the URL is a feed the caller's own discovery just found and read
   * (the web app's "Follow"), so finding it again would only fetch it once more.
   */
  discovered?: boolean;
}

/**
 * Subscribes an (already authorised) account to a feed: discovers the feed behind a page, records the
 * subscription with its filters, and queues what the backfill window allows: for a feed Tidings already
 * polls, from the items it knows; for a new feed, by fetching it now.
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
  if (input.trusted !== true && input.discovered !== true) {
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
  const at = currentTime(deps).toISOString();
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
    ...filters,
    at,
  });
  // Following the feed already: filters given again replace its own.
  if (!created && (filters.include !== null || filters.exclude !== null)) {
    await updateSubscriptionFilters(deps.store.db, accountId, subscription.id, filters);
  }
  if (subscription.backfilled_at === null) await firstFill(deps, subscription, input.trusted === true);
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
      if (!(err instanceof SubscribeError)) throw err;
      result.refused.push({ url: o.url, message: err.message });
    }
  }
  return result;
}
