import type { Command } from 'commander';
import { describeClearedEmail, ensureFirstAccount, sharedEmailsCleared } from '../accounts/service.js';
import { loadConfig } from '../config.js';
import { buildServer } from '../http/server.js';
import { createLogger } from '../logger.js';
import type { Worker } from '../lib/workers.js';
import { type MetricsListener, createMetrics, listenMetrics } from './metrics.js';
import { startWorkers, stopWorkers } from './workers.js';
import { type Io, UsageError, curlLines } from './context.js';
import { startServerStore } from './database.js';

export function serveCommand(program: Command, io: Io): void {
  program
    .command('serve')
    .description('serve the API (and, unless --no-worker, run the background workers)')
    .option('--no-worker', 'do not run background workers in this process (same as TIDINGS_WORKER=false)')
    .action(async (opts: { worker: boolean }) => {
      await serve(io, { worker: opts.worker });
    });
}

export async function serve(io: Io, opts: { worker: boolean }): Promise<void> {
  const config = loadConfig(io.env);
  const logger = createLogger(config.logLevel);
  const { store, applied } = await startServerStore(config, logger);
  for (const m of applied) logger.info({ migration: m.migrationName, status: m.status }, 'migration');
  if (applied.some((m) => m.migrationName === '0026_unique_email_opml_imports')) {
    for (const c of await sharedEmailsCleared(store)) logger.warn(describeClearedEmail(c));
  }

  const first = await ensureFirstAccount(store);
  if (first !== null) {
    io.out('');
    io.out(`Tidings created a first account (id ${first.account.id}, "${first.account.name}").`);
    io.out(`Its API key, shown only this once: ${first.apiKey}`);
    io.out('Save a link with either variant of the API:');
    for (const line of curlLines(config.baseUrl, first.apiKey)) io.out(line);
    io.out('');
  }

  const metrics = await createMetrics(config, store, logger);
  const app = buildServer({ config, store, logger, metrics: metrics ?? undefined });
  const runWorkers = opts.worker && config.worker;
  let workers: Worker[] = [];
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
    await app.close();
    await stopWorkers(workers);
    await metricsListener?.app.close();
    await store.close();
    logger.info('stopped');
    logger.flush();
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await store.close();
    const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      throw new UsageError(`cannot listen on ${config.host}:${config.port} (${code}); set PORT or HOST`);
    }
    throw err;
  }
  if (config.metrics !== null && metrics !== null) {
    try {
      metricsListener = await listenMetrics(config.metrics, metrics, logger);
    } catch (err) {
      await app.close();
      await store.close();
      throw err;
    }
  }
  if (runWorkers) workers = startWorkers(config, store, logger, metrics ?? undefined);
  logger.info(
    {
      url: config.baseUrl,
      database: `${store.engine} ${store.describe}`,
      workers: runWorkers ? workers.map((w) => w.name) : 'off',
      metrics: metricsListener?.url ?? 'off',
    },
    'listening',
  );
}
