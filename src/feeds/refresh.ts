import { type FeedFetchUpdate, type FeedRow, feedByUrl } from '../store/feeds.js';
import type { FeedFailure } from '../errors.js';
import type { FetchResult } from '../fetch/fetch.js';
import { type FeedFetchOutcome, stopwatch } from '../lib/metrics.js';
import { type RefreshDeps, currentTime } from './deps.js';
import { fetchFeed } from './fetchFeed.js';
import { feedParser } from './parse/load.js';
import { type Feed, FeedParseError } from './parse/model.js';
import { countOffered } from './queueing.js';
import { intervalFromPosts, nextFetchAfterError, nextFetchAfterSuccess } from './schedule.js';
import { recordOutcome, storeFetch } from './writer.js';

export type RefreshOutcome =
  | { status: 'updated'; newItems: number; queued: number }
  | { status: 'not_modified' }
  | { status: 'gone' }
  | { status: 'error'; reason: FeedErrorReason; message: string }
  /** Another worker took the feed over (our lease had expired); nothing was written. */
  | { status: 'lease_lost' };

/** Why a fetch is an error: the fetcher's code, an answer that is not a feed, or storing its items failed. */
export type FeedErrorReason = FeedFailure;

/**
 * The whole refresh of one feed that `owner` holds a lease on: fetch → parse → remember new items →
 * queue them for every subscriber whose filters they pass → schedule the next fetch. Never throws for
 * anything a feed or its server does: that ends as the feed's recorded error.
 */
export async function refreshFeed(deps: RefreshDeps, feed: FeedRow, owner: string): Promise<RefreshOutcome> {
  const elapsed = stopwatch();
  let outcome: RefreshOutcome | undefined;
  try {
    outcome = await refresh(deps, feed, owner);
    return outcome;
  } finally {
    // Counted once, here, whoever asked (the poller, a new subscription); a throw is an internal error.
    const seen = outcome ?? { status: 'error', reason: 'internal' };
    deps.metrics?.feedFetched(OUTCOME[seen.status], seen.status === 'error' ? seen.reason : null, elapsed());
    if (seen.status === 'lease_lost') deps.metrics?.leaseLost('poller');
  }
}

const OUTCOME: Record<RefreshOutcome['status'], FeedFetchOutcome> = {
  updated: 'ok',
  not_modified: 'not_modified',
  gone: 'gone',
  error: 'error',
  lease_lost: 'lease_lost',
};

async function refresh(deps: RefreshDeps, feed: FeedRow, owner: string): Promise<RefreshOutcome> {
  const now = currentTime(deps);
  const result = await fetchFeed(feed.url, {
    ...deps.fetch,
    etag: feed.etag,
    lastModified: feed.last_modified,
  });
  const movedTo = result.kind === 'error' ? undefined : await freeUrl(deps, feed, result.permanentUrl);
  switch (result.kind) {
    case 'error':
      return recordError(
        deps,
        feed,
        owner,
        now,
        result.code,
        result.message,
        result.retryAfter ?? null,
        result.status,
      );
    case 'gone':
      return record(
        deps,
        feed,
        owner,
        { status: 'gone' },
        {
          status: 'gone',
          nextFetchAt: now.toISOString(),
          fetchedAt: now.toISOString(),
          error: `${result.message}. Polling has stopped; remove the feed or subscribe to its new address.`,
        },
      );
    case 'not_modified':
      return record(
        deps,
        feed,
        owner,
        { status: 'not_modified' },
        {
          ...urlChange(feed, movedTo),
          // A 304 need not repeat Last-Modified (nor, from some servers, the ETag): keep what was stored.
          ...validators({
            etag: result.etag ?? feed.etag,
            lastModified: result.lastModified ?? feed.last_modified,
          }),
          nextFetchAt: nextFetchAfterSuccess(now, feed.interval_minutes, hints(result, null)).toISOString(),
          fetchedAt: now.toISOString(),
          error: null,
        },
      );
    case 'ok':
      // A failure storing the items (a database error, a bug) is still recorded on the feed, so that it
      // shows in `feed list` and the feed backs off instead of failing silently on every pass.
      return ingest(deps, feed, owner, now, result, movedTo).catch(async (err: unknown) => {
        deps.log.error({ err, feedId: feed.id }, 'storing the feed failed');
        const reason = err instanceof Error ? err.message : String(err);
        return recordError(
          deps,
          feed,
          owner,
          now,
          'store',
          `Tidings could not store this feed's items: ${reason}`,
          null,
        );
      });
  }
}

/**
 * A feed that answered: parse it, then in one transaction under the lease remember its items, queue the
 * new ones (queueing.ts) and schedule the next fetch (writer.ts: with other fetches ready at the same time).
 */
async function ingest(
  deps: RefreshDeps,
  feed: FeedRow,
  owner: string,
  now: Date,
  result: Extract<FetchResult, { kind: 'ok' }>,
  movedTo: string | undefined,
): Promise<RefreshOutcome> {
  let parsed: Feed;
  try {
    parsed = (await feedParser()).parseFeed(result.body, {
      url: result.finalUrl,
      contentType: result.contentType ?? undefined,
      now,
    });
  } catch (err) {
    if (!(err instanceof FeedParseError)) throw err;
    return recordError(
      deps,
      feed,
      owner,
      now,
      'not_a_feed',
      `The address answered, but not with a feed: ${err.message.replace(/^not a feed: /, '')}`,
      null,
    );
  }
  const interval = intervalFromPosts(parsed.items.map((i) => i.published));
  const update: FeedFetchUpdate = {
    ...urlChange(feed, movedTo),
    ...validators(result),
    ...(parsed.title === '' ? {} : { title: parsed.title }),
    siteUrl: parsed.siteUrl ?? feed.site_url,
    intervalMinutes: interval,
    readLeniently: parsed.lenient,
    nextFetchAt: nextFetchAfterSuccess(now, interval, hints(result, parsed.ttlMinutes)).toISOString(),
    fetchedAt: now.toISOString(),
    error: null,
  };
  const stored = await storeFetch(deps, { feed, owner, now, items: parsed.items, update });
  if (stored.status === 'lease_lost') return stored;
  countOffered(deps, stored.offered);
  return { status: 'updated', newItems: stored.newItems, queued: stored.queued };
}

async function recordError(
  deps: RefreshDeps,
  feed: FeedRow,
  owner: string,
  now: Date,
  reason: FeedErrorReason,
  message: string,
  retryAfter: number | null,
  status?: number,
): Promise<RefreshOutcome> {
  const next = nextFetchAfterError(now, feed.error_count + 1, retryAfter);
  return record(
    deps,
    feed,
    owner,
    { status: 'error', reason, message },
    {
      nextFetchAt: next.toISOString(),
      fetchedAt: now.toISOString(),
      error: message,
      failure: { reason, status: reason === 'http_status' ? (status ?? null) : null },
    },
  );
}

async function record(
  deps: RefreshDeps,
  feed: FeedRow,
  owner: string,
  outcome: RefreshOutcome,
  update: FeedFetchUpdate,
): Promise<RefreshOutcome> {
  return (await recordOutcome(deps, { feedId: feed.id, owner, update })) ? outcome : { status: 'lease_lost' };
}

/**
 * Where a permanent redirect moves the feed: its new URL, unless another feed already has it (then both
 * rows are fetched until their subscribers move; merging them is left to the reader).
 */
async function freeUrl(
  deps: RefreshDeps,
  feed: FeedRow,
  permanentUrl: string | null,
): Promise<string | undefined> {
  if (permanentUrl === null || permanentUrl === feed.url) return undefined;
  return (await feedByUrl(deps.store.db, permanentUrl)) === null ? permanentUrl : undefined;
}

function urlChange(feed: FeedRow, movedTo: string | undefined): { url?: string } {
  return movedTo === undefined || movedTo === feed.url ? {} : { url: movedTo };
}

function validators(r: {
  etag: string | null;
  lastModified: string | null;
}): Pick<FeedFetchUpdate, 'etag' | 'lastModified'> {
  return { etag: r.etag, lastModified: r.lastModified };
}

function hints(
  r: { cacheControlMaxAge: number | null; expires: Date | null },
  ttlMinutes: number | null,
): { maxAgeSeconds: number | null; expires: Date | null; ttlMinutes: number | null } {
  return { maxAgeSeconds: r.cacheControlMaxAge, expires: r.expires, ttlMinutes };
}
