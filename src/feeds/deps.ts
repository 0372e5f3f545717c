import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Store } from '../store/db.js';
import type { RefreshDeps } from './refresh.js';

/** What fetching and ingesting feeds needs, from the configuration. */
export function feedDeps(config: Config, store: Store, log: Logger): RefreshDeps {
  return {
    store,
    log,
    fetch: { policy: { allowPrivate: config.allowPrivateNetworks }, maxBytes: config.feedMaxBytes },
    backfillHours: config.feedBackfillHours,
    queueLimit: config.queueLimit,
  };
}
