import type { ErrorKind } from '../errors.js';

/**
 * What a process counts for Prometheus (docs/operating.md#metrics lists every metric). The composition
 * root (cli/serve.ts, cli/worker.ts) makes one `PrometheusMetrics` (metricsRegistry.ts, loaded only then)
 * when TIDINGS_METRICS is on and passes it down in the deps objects; where it is absent nothing is counted. Each event is recorded once, where it
 * happens. Label values come from the closed sets below (or a route pattern): never a key, a token, an
 * account, an id or a URL.
 */
export interface Metrics {
  /** A request answered, by its route pattern ('unmatched' when no route matched). */
  httpRequest(request: { method: string; route: string; status: number; seconds: number }): void;
  /** Saves that reached a queue (or were refused), `count` of them. */
  saved(source: SaveSource, outcome: SaveOutcome, count?: number): void;
  /** One fetch of a feed and what came of it; `reason` says why an error is one. */
  feedFetched(outcome: FeedFetchOutcome, reason: string | null, seconds: number): void;
  digestBuilt(outcome: DigestBuildOutcome, seconds: number): void;
  /** One attempt to email a digest. */
  digestEmailed(outcome: DigestEmailOutcome, seconds: number): void;
  /** One page read by the page reader: a saved link's (`queue`) or, paced, a reading-list link's. */
  pageRead(outcome: PageReadOutcome, seconds: number, list: PageReadList): void;
  /** A worker found that the lease it worked under had passed to another worker. */
  leaseLost(worker: LeaseWorker): void;
}

/**
 * Where a save came from: the API (`bookmarklet` when a web page sent it: the request has an Origin), the
 * web app's Add form, or a feed.
 */
export type SaveSource = 'api' | 'bookmarklet' | 'web' | 'feed';
/** A save's answer, the refusal's kind, or `error` (the database, a bug). */
export type SaveOutcome = 'added' | 'title_updated' | 'already_queued' | ErrorKind | 'error';
export type FeedFetchOutcome = 'ok' | 'not_modified' | 'gone' | 'lease_lost' | 'error';
export type DigestBuildOutcome = 'built' | 'empty' | 'exists' | 'lease_lost' | 'no_account' | 'error';
export type DigestEmailOutcome = 'sent' | 'retrying' | 'failed' | 'not_emailed' | 'lease_lost' | 'error';
export type PageReadOutcome = 'read' | 'retry' | 'failed' | 'lease_lost' | 'error';
/** Whose page it was: the queue's (saved links, feed items) or the reading list's (read at its pace). */
export type PageReadList = 'queue' | 'reading_list';
export type LeaseWorker = 'poller' | 'digest_build' | 'digest_email' | 'reader';

/** A connection pool as it stands. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/** What the gauges read when Prometheus scrapes. Each is optional: a gauge without its probe is left out. */
export interface MetricsProbes {
  /** Items waiting over all queues, and in the longest one (one query). */
  queues?: () => Promise<{ items: number; longest: number }>;
  /** Active feeds whose fetch is due, and of those, the ones due for longer than `FEED_OVERDUE_MS`. */
  feeds?: () => Promise<{ due: number; overdue: number }>;
  /** The database pool (PostgreSQL); null where there is none (SQLite). */
  pool?: () => PoolStats | null;
  /** Saves accepted and not yet committed by the group-commit writer. */
  pendingSaves?: () => number;
}

/** A feed due for longer than this is overdue: the pollers are not keeping up (or not running). */
export const FEED_OVERDUE_MS = 5 * 60_000;

/** Seconds since it was made, when called: `const elapsed = stopwatch(); …; elapsed()`. */
export function stopwatch(): () => number {
  const start = performance.now();
  return () => (performance.now() - start) / 1000;
}
