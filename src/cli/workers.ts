import type { Logger } from 'pino';
import { readerDeps } from '../articles/deps.js';
import { startPacedReader } from '../articles/pacedReader.js';
import { startPageReader } from '../articles/worker.js';
import type { Config } from '../config.js';
import { digestDeps } from '../digest/deps.js';
import { startDigestWorker } from '../digest/worker.js';
import { feedDeps } from '../feeds/deps.js';
import { startPoller } from '../feeds/poller.js';
import type { Metrics } from '../lib/metrics.js';
import type { Worker } from '../lib/workers.js';
import type { Store } from '../store/db.js';

export function startWorkers(config: Config, store: Store, log: Logger, metrics?: Metrics): Worker[] {
  const workers = [
    startPoller(feedDeps(config, store, log.child({ worker: 'poller' }), metrics)),
    startDigestWorker(digestDeps(config, store, log.child({ worker: 'digest' }), metrics)),
    startPageReader(readerDeps(config, store, log.child({ worker: 'reader' }), metrics)),
  ];
  const perMinute = config.readingListPagesPerMinute;
  if (perMinute > 0) {
    const deps = readerDeps(config, store, log.child({ worker: 'reading list reader' }), metrics);
    workers.push(startPacedReader(deps, { perMinute }));
  }
  return workers;
}

export async function stopWorkers(workers: readonly Worker[]): Promise<void> {
  await Promise.all(workers.map((w) => w.stop()));
}
