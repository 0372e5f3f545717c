import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { digestDeps } from '../digest/deps.js';
import { startDigestWorker } from '../digest/worker.js';
import { feedDeps } from '../feeds/deps.js';
import { startPoller } from '../feeds/poller.js';
import type { Store } from '../store/db.js';

/** Background work that runs until stopped: in `serve` (unless disabled) and in `worker`. */
export interface Worker {
  name: string;
  stop(): Promise<void>;
}

export function startWorkers(config: Config, store: Store, log: Logger): Worker[] {
  return [
    startPoller(feedDeps(config, store, log.child({ worker: 'poller' }))),
    startDigestWorker(digestDeps(config, store, log.child({ worker: 'digest' }))),
  ];
}

export async function stopWorkers(workers: readonly Worker[]): Promise<void> {
  await Promise.all(workers.map((w) => w.stop()));
}
