import type { Command } from 'commander';
import { localeOf, setOperatorLanguage } from '../i18n/locale.js';
import { loadConfig } from '../config.js';
import { feedDeps } from '../feeds/deps.js';
import { pollOnce } from '../feeds/poller.js';
import { createLogger } from '../logger.js';
import { createMetrics, listenMetrics } from './metrics.js';
import { startInbound } from './inbound.js';
import { inboundStartError } from './serve.js';
import { startWorkers, stopWorkers } from './workers.js';
import { type Io, withStore } from './context.js';
import { startServerStore } from './database.js';

export function workerCommands(program: Command, io: Io): void {
  const help = localeOf(null);
  program
    .command('worker')
    .description(help.t('cli.help.worker.about'))
    .action(async () => {
      const config = loadConfig(io.env);
      setOperatorLanguage(config.language);
      const log = createLogger(config.logLevel);
      const { store } = await startServerStore(config, log);
      const metrics = await createMetrics(config, store, log);
      const listener =
        config.metrics === null || metrics === null
          ? null
          : await listenMetrics(config.metrics, metrics, log).catch(async (err: unknown) => {
              await store.close();
              throw err;
            });
      const inbound = await startInbound(config, store, log, { imap: true }).catch(async (err: unknown) => {
        await listener?.app.close();
        await store.close();
        throw inboundStartError(err, config);
      });
      const workers = [...inbound, ...startWorkers(config, store, log, metrics ?? undefined)];
      log.info({ workers: workers.map((w) => w.name), metrics: listener?.url ?? 'off' }, 'worker started');
      await new Promise<void>((resolve) => {
        const stop = (signal: string): void => {
          log.info({ signal }, 'worker stopping');
          // As serve does: a fetch or an SMTP conversation that will not end must not keep the process.
          setTimeout(() => {
            log.warn('shutdown timed out; exiting');
            process.exit(1);
          }, config.shutdownTimeoutMs).unref();
          resolve();
        };
        process.once('SIGTERM', () => stop('SIGTERM'));
        process.once('SIGINT', () => stop('SIGINT'));
      });
      await stopWorkers(workers);
      await listener?.app.close();
      await store.close();
      log.info('worker stopped');
    });

  program
    .command('poll')
    .description(help.t('cli.help.poll.about'))
    .option('--once', help.t('cli.help.poll.once'))
    .option('--all', help.t('cli.help.poll.all'))
    .option('--json', help.t('cli.help.common.jsonSummary'))
    .action(async (opts: { once?: boolean; all?: boolean; json?: boolean }) => {
      await withStore(io, async (store, config) => {
        const summary = await pollOnce(feedDeps(config, store, createLogger(config.logLevel)), {
          all: opts.all === true,
        });
        if (opts.json === true) {
          io.out(JSON.stringify(summary));
          return;
        }
        const { feeds, updated, notModified, errors, gone, newItems, queued } = summary;
        const counts = { feeds, updated, notModified, errors, gone, newItems, queued };
        io.out(localeOf(null).t('cli.worker.summary', counts));
      });
    });
}
