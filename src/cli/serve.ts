import type { Command } from 'commander';
import { localeOf, setOperatorLanguage } from '../i18n/locale.js';
import { type Config, loadConfig } from '../config.js';
import { listenStarting, type StartingServer } from '../http/starting.js';
import { checkDatabaseSettings } from '../lib/databaseUrl.js';
import { collectGarbage, holdYoungGeneration } from '../lib/heap.js';
import { createLogger } from '../logger.js';
import type { Logger } from 'pino';
import type { Worker } from '../lib/workers.js';
import type { MetricsListener } from './metrics.js';
import { type Io, cannotListen, curlLines } from './context.js';

export function serveCommand(program: Command, io: Io): void {
  const help = localeOf(null);
  program
    .command('serve')
    .description(help.t('cli.help.serve.about'))
    .option('--no-worker', help.t('cli.help.serve.noWorker'))
    .action(async (opts: { worker: boolean }) => {
      await serve(io, { worker: opts.worker });
    });
}

/**
 * Listens first, with only what /healthz needs (http/starting.ts), then loads the rest, migrates, makes the
 * first account and builds the app, which then answers the requests that arrived meanwhile (issue 26).
 */
export async function serve(io: Io, opts: { worker: boolean }): Promise<void> {
  holdYoungGeneration();
  const config = loadConfig(io.env);
  setOperatorLanguage(config.language);
  // A setting the database cannot be opened with is exit 2 before the port is taken, not after.
  checkDatabaseSettings(config);
  const logger = createLogger(config.logLevel);
  let starting: StartingServer;
  try {
    starting = await listenStarting(config.port, config.host);
  } catch (err) {
    const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      throw cannotListen('http', `${config.host}:${config.port}`, code, ['PORT', 'HOST']);
    }
    throw err;
  }
  try {
    await start(io, opts, { config, logger, starting });
  } catch (err) {
    starting.abort();
    throw err;
  }
}

async function start(
  io: Io,
  opts: { worker: boolean },
  {
    config,
    logger,
    starting,
  }: {
    config: Config;
    logger: Logger;
    starting: StartingServer;
  },
): Promise<void> {
  const [
    service,
    { buildServer },
    { createMetrics, listenMetrics },
    { startWorkers, stopWorkers },
    database,
    { startInbound },
  ] = await Promise.all([
    import('../accounts/service.js'),
    import('../http/server.js'),
    import('./metrics.js'),
    import('./workers.js'),
    import('./database.js'),
    import('./inbound.js'),
  ]);
  const { store, applied } = await database.startServerStore(config, logger);
  const app = await (async () => {
    try {
      for (const m of applied) logger.info({ migration: m.migrationName, status: m.status }, 'migration');
      if (applied.some((m) => m.migrationName === '0026_unique_email_opml_imports')) {
        for (const c of await service.sharedEmailsCleared(store))
          logger.warn(service.describeClearedEmail(c));
      }
      const first = await service.ensureFirstAccount(store);
      if (first !== null) {
        io.out('');
        const locale = localeOf(null);
        const { id, name } = first.account;
        io.out(locale.t('cli.serve.firstAccount', { id: String(id), name }));
        io.out(locale.t('cli.serve.firstKey', { key: first.apiKey }));
        io.out(locale.t('cli.account.saveWith'));
        for (const line of curlLines(config.baseUrl, first.apiKey)) io.out(line);
        io.out('');
      }
      const metrics = await createMetrics(config, store, logger);
      const built = buildServer({
        config,
        store,
        logger,
        metrics: metrics ?? undefined,
        serverFactory: starting.factory,
      });
      // Fastify did not open this server, so it does not close it either: at the same point as it would.
      const serverClosed = new Promise<void>((resolve) => starting.server.once('close', resolve));
      built.addHook('preClose', (done) => {
        starting.server.close();
        done();
      });
      await built.ready();
      return { app: built, metrics, serverClosed };
    } catch (err) {
      await store.close();
      throw err;
    }
  })();
  starting.ready();
  const runWorkers = opts.worker && config.worker;
  let workers: Worker[] = [];
  let inbound: Worker[] = [];
  let metricsListener: MetricsListener | null = null;

  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      logger.warn('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    force.unref();
    await stopWorkers(inbound);
    await app.app.close();
    await app.serverClosed;
    await stopWorkers(workers);
    await metricsListener?.app.close();
    await store.close();
    logger.info('stopped');
    logger.flush();
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  if (config.metrics !== null && app.metrics !== null) {
    try {
      metricsListener = await listenMetrics(config.metrics, app.metrics, logger);
    } catch (err) {
      await app.app.close();
      await store.close();
      throw err;
    }
  }
  try {
    inbound = await startInbound(config, store, logger, { imap: runWorkers });
  } catch (err) {
    await metricsListener?.app.close();
    await app.app.close();
    await store.close();
    throw inboundStartError(err, config);
  }
  if (runWorkers) workers = startWorkers(config, store, logger, app.metrics ?? undefined);
  logger.info(
    {
      url: config.baseUrl,
      database: `${store.engine} ${store.describe}`,
      workers: runWorkers ? workers.map((w) => w.name) : 'off',
      inbound: inbound.map((w) => w.name),
      metrics: metricsListener?.url ?? 'off',
    },
    'listening',
  );
  // Once the workers' first passes are done too: what start-up left behind is given back (lib/heap.ts).
  setTimeout(() => {
    if (!stopping) collectGarbage();
  }, START_UP_DONE_MS).unref();
}

/** A port the SMTP listener cannot take is a usage error, as PORT's is. */
export function inboundStartError(err: unknown, config: Config): unknown {
  const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
  if (
    config.inboundSmtp !== null &&
    (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL')
  ) {
    const { host, port } = config.inboundSmtp;
    const settings = ['TIDINGS_INBOUND_SMTP_PORT', 'TIDINGS_INBOUND_SMTP_HOST'] as const;
    return cannotListen('mail', `${host}:${port}`, code, settings);
  }
  return err;
}

/** When, after it listens with its app, `serve` collects start-up's garbage: after the workers' first passes. */
const START_UP_DONE_MS = 3000;
