import {
  type FeedRow,
  activeFeedIds,
  claimDueFeeds,
  claimFeeds,
  dueFeedCounts,
  nextDueAt,
  releaseFeed,
} from '../store/feeds.js';
import { type RefreshDeps, currentTime } from './deps.js';
import { type RefreshOutcome, refreshFeed } from './refresh.js';
import type { Store } from '../store/db.js';
import { FEED_OVERDUE_MS } from '../lib/metrics.js';
import { KeyedSemaphore, Semaphore } from '../lib/semaphore.js';
import { hostOf } from '../lib/url.js';
import { type Worker, startLoop, workerId } from '../lib/workers.js';

export interface PollerOptions {
  /** Feeds fetched at once by this process. */
  concurrency: number;
  /** Feeds of one host fetched at once: politeness towards small sites with many feeds. */
  perHost: number;
  /** How long a claimed feed stays ours; longer than one whole fetch (30 s) with room to spare. */
  leaseMs: number;
}

export const DEFAULT_POLLER_OPTIONS: PollerOptions = { concurrency: 16, perHost: 2, leaseMs: 5 * 60_000 };

export interface PollSummary {
  feeds: number;
  updated: number;
  notModified: number;
  errors: number;
  gone: number;
  newItems: number;
  queued: number;
}

/**
 * One pass: fetches every feed that is due (or, with `all`, every active feed) and returns what
 * happened. Feeds are claimed with leases, so several processes can poll the same database at once.
 * Once `signal` is aborted the pass ends early: fetches under way finish, nothing more is claimed, and
 * claimed feeds not yet started are given back.
 */
export async function pollOnce(
  deps: RefreshDeps,
  opts: Partial<PollerOptions> & { all?: boolean; owner?: string; signal?: AbortSignal } = {},
): Promise<PollSummary> {
  const o = { ...DEFAULT_POLLER_OPTIONS, ...opts };
  const owner = opts.owner ?? workerId();
  const now = deps.now ?? (() => new Date());
  const lease = (): { owner: string; now: string; leaseUntil: string } => {
    const t = now();
    return { owner, now: t.toISOString(), leaseUntil: new Date(t.getTime() + o.leaseMs).toISOString() };
  };
  const summary: PollSummary = {
    feeds: 0,
    updated: 0,
    notModified: 0,
    errors: 0,
    gone: 0,
    newItems: 0,
    queued: 0,
  };
  const global = new Semaphore(o.concurrency);
  const perHost = new KeyedSemaphore(o.perHost);
  const stopped = (): boolean => opts.signal?.aborted === true;
  const refresh = async (feed: FeedRow): Promise<void> => {
    if (stopped()) await releaseFeed(deps.store.db, feed.id, owner);
    else tally(summary, await refreshOne(deps, feed, owner));
  };
  // Feeds are claimed a batch at a time (one statement each).
  const batchSize = o.concurrency * 4;
  const ids = opts.all === true ? await activeFeedIds(deps.store.db) : null;
  let next = 0;
  const claim = async (): Promise<FeedRow[] | null> => {
    if (ids === null) {
      const due = await claimDueFeeds(deps.store.db, deps.store.engine, { ...lease(), limit: batchSize });
      return due.length === 0 ? null : due;
    }
    if (next >= ids.length) return null;
    const chunk = ids.slice(next, next + batchSize);
    next += batchSize;
    return claimFeeds(deps.store.db, chunk, lease());
  };
  // The next batch is claimed as soon as every feed of the one before has its turn to be fetched, so that
  // fetches do not wait for a batch's last ones (and their writes) to finish. A batch is fetched well
  // within its lease: a few fetches' time after the one before.
  const running: Promise<void>[] = [];
  let failed: { err: unknown } | undefined;
  while (!stopped()) {
    const batch = await claim();
    if (batch === null) break;
    if (batch.length === 0) continue; // every feed of this chunk was taken by someone else
    let unstarted = batch.length;
    let allStarted = (): void => undefined;
    const started = new Promise<void>((resolve) => (allStarted = resolve));
    for (const feed of batch) {
      const done = global.run(() => {
        if (--unstarted === 0) allStarted();
        return perHost.run(hostOf(feed.url), () => refresh(feed));
      });
      running.push(done.catch((err: unknown) => void (failed ??= { err })));
    }
    await started;
    if (failed !== undefined) break;
  }
  await Promise.all(running);
  if (failed !== undefined) throw failed.err;
  return summary;
}

/** Refreshes one feed; an unexpected failure (a bug, the database) is logged and counted, never thrown. */
async function refreshOne(deps: RefreshDeps, feed: FeedRow, owner: string): Promise<RefreshOutcome> {
  try {
    const outcome = await refreshFeed(deps, feed, owner);
    deps.log.debug({ feedId: feed.id, url: feed.url, ...outcome }, 'feed refreshed');
    return outcome;
  } catch (err) {
    deps.log.error({ err, feedId: feed.id, url: feed.url }, 'feed refresh failed');
    return { status: 'error', reason: 'internal', message: err instanceof Error ? err.message : String(err) };
  }
}

function tally(s: PollSummary, r: RefreshOutcome): void {
  s.feeds++;
  if (r.status === 'updated') {
    s.updated++;
    s.newItems += r.newItems;
    s.queued += r.queued;
  } else if (r.status === 'not_modified') s.notModified++;
  else if (r.status === 'gone') s.gone++;
  else if (r.status === 'error') s.errors++;
}

/**
 * Polls in the background until stopped: a pass, then a sleep until the next feed is due (at most
 * `maxSleepMs`, so feeds added by other processes are noticed).
 */
export function startPoller(
  deps: RefreshDeps,
  opts: Partial<PollerOptions> & { maxSleepMs?: number } = {},
): Worker {
  const owner = workerId();
  const maxSleepMs = opts.maxSleepMs ?? 30_000;
  return startLoop({
    name: 'feed poller',
    pass: async (signal) => {
      const s = await pollOnce(deps, { ...opts, owner, signal });
      if (s.feeds > 0) deps.log.info({ ...s }, 'poll pass');
    },
    sleepMs: () => sleepMs(deps, maxSleepMs),
    log: deps.log,
    failed: 'poll pass failed; retrying shortly',
  });
}

async function sleepMs(deps: RefreshDeps, maxSleepMs: number): Promise<number> {
  try {
    const next = await nextDueAt(deps.store.db);
    if (next === null) return maxSleepMs;
    const now = currentTime(deps).getTime();
    return Math.min(maxSleepMs, Math.max(1000, Date.parse(next) - now));
  } catch {
    return maxSleepMs;
  }
}

/** Active feeds due now, and of those, the ones due for longer than FEED_OVERDUE_MS (for the metrics). */
export function feedBacklog(store: Store, now = new Date()): Promise<{ due: number; overdue: number }> {
  return dueFeedCounts(store.db, {
    now: now.toISOString(),
    overdueBefore: new Date(now.getTime() - FEED_OVERDUE_MS).toISOString(),
  });
}
