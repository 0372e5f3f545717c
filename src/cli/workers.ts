import type { Logger } from 'pino';
import { readerDeps } from '../articles/deps.js';
import { startPageReader } from '../articles/worker.js';
import type { Config } from '../config.js';
import { digestDeps } from '../digest/deps.js';
import { startDigestWorker } from '../digest/worker.js';
import { feedDeps } from '../feeds/deps.js';
import { startPoller } from '../feeds/poller.js';
import type { Worker } from '../lib/workers.js';
import type { Store } from '../store/db.js';

export function startWorkers(config: Config, store: Store, log: Logger): Worker[] {
  return [
    startPoller(feedDeps(config, store, log.child({ worker: 'poller' }))),
    startDigestWorker(digestDeps(config, store, log.child({ worker: 'digest' }))),
    startPageReader(readerDeps(config, store, log.child({ worker: 'reader' }))),
  ];
}

export async function stopWorkers(workers: readonly Worker[]): Promise<void> {
  await Promise.all(workers.map((w) => w.stop()));
}
