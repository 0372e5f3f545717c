import type { Logger } from 'pino';
import { readerDeps } from '../articles/deps.js';
import { startPacedReader } from '../articles/pacedReader.js';
import { startPageReader } from '../articles/worker.js';
import type { Config } from '../config.js';
import { digestDeps } from '../digest/deps.js';
import { createMailer } from '../digest/mail.js';
import { startDigestWorker } from '../digest/worker.js';
import { feedDeps } from '../feeds/deps.js';
import { startPoller } from '../feeds/poller.js';
import type { Metrics } from '../lib/metrics.js';
import { startForwarder } from '../newsletters/forward.js';
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
  // A sender's first message forwarded at once (a confirmation, usually): with newsletters and SMTP on.
  const mailer = config.inbound.domain === null ? null : createMailer(config);
  if (mailer !== null) {
    const log2 = log.child({ worker: 'newsletter forwarder' });
    const { mailFrom, baseUrl } = config;
    const forwarder = startForwarder({ store, log: log2, mailer, mailFrom, baseUrl });
    workers.push({
      name: forwarder.name,
      stop: async () => {
        await forwarder.stop();
        mailer.close();
      },
    });
  }
  return workers;
}

export async function stopWorkers(workers: readonly Worker[]): Promise<void> {
  await Promise.all(workers.map((w) => w.stop()));
}
