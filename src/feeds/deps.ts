import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { FetchOptions } from '../fetch/fetch.js';
import type { Metrics } from '../lib/metrics.js';
import type { Store } from '../store/db.js';

/** What fetching feeds and queueing their items needs. */
export interface RefreshDeps {
  store: Store;
  log: Logger;
  /** Network policy, size limit, timeouts, User-Agent. */
  fetch: Omit<FetchOptions, 'etag' | 'lastModified'>;
  /** A new subscription gets the items published this many hours before it was made, or later. */
  backfillHours: number;
  queueLimit: number;
  /** The most feeds one account may follow (TIDINGS_MAX_SUBSCRIPTIONS). */
  maxSubscriptions: number;
  /** The most feeds one OPML import may list (TIDINGS_MAX_OPML_OUTLINES). */
  maxOpmlOutlines: number;
  /** The clock; the system's by default. */
  now?: () => Date;
  /** Where fetches and queued items are counted; nothing is counted without it. */
  metrics?: Metrics | undefined;
}

/** The time by the deps' clock. */
export const currentTime = (deps: Pick<RefreshDeps, 'now'>): Date => (deps.now ?? (() => new Date()))();

/** What fetching and ingesting feeds needs, from the configuration. */
export function feedDeps(config: Config, store: Store, log: Logger, metrics?: Metrics): RefreshDeps {
  return {
    store,
    log,
    metrics,
    fetch: { policy: { allowPrivate: config.allowPrivateNetworks }, maxBytes: config.feedMaxBytes },
    backfillHours: config.feedBackfillHours,
    queueLimit: config.queueLimit,
    maxSubscriptions: config.maxSubscriptions,
    maxOpmlOutlines: config.maxOpmlOutlines,
  };
}
