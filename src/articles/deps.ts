import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { FetchOptions } from '../fetch/fetch.js';
import type { Metrics } from '../lib/metrics.js';
import type { Store } from '../store/db.js';

/** What reading saved pages needs. */
export interface ReaderDeps {
  store: Store;
  log: Logger;
  /** Network policy, size limit (a larger page is read up to it), timeouts, User-Agent. */
  fetch: Omit<FetchOptions, 'etag' | 'lastModified' | 'accept' | 'noun' | 'truncate'>;
  /** The clock; the system's by default. */
  now?: () => Date;
  /** Jitter in [0, 1); Math.random by default (tests fix it). */
  random?: () => number;
  /**
   * Threads that extract pages while this one fetches and records (articles/extractPool.ts); 0 or absent:
   * one. Extraction never runs in this thread.
   */
  extractThreads?: number;
  /** Where page reads are counted; nothing is counted without it. */
  metrics?: Metrics | undefined;
}

export const readerTime = (deps: Pick<ReaderDeps, 'now'>): Date => (deps.now ?? (() => new Date()))();

/** The page reader's deps, from the configuration: the same network policy and timeouts as feeds. */
export function readerDeps(config: Config, store: Store, log: Logger, metrics?: Metrics): ReaderDeps {
  return {
    store,
    log,
    metrics,
    fetch: { policy: { allowPrivate: config.allowPrivateNetworks }, maxBytes: config.pageMaxBytes },
    extractThreads: config.readerThreads,
  };
}
