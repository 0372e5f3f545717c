import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config, MetricsConfig } from '../config.js';
import { feedBacklog } from '../feeds/poller.js';
import { buildMetricsServer } from '../http/metricsServer.js';
import type { PrometheusMetrics } from '../lib/metricsRegistry.js';
import { queueSizes } from '../queue/reads.js';
import { pendingSaves } from '../queue/writer.js';
import type { Store } from '../store/db.js';
import { cannotListen } from './context.js';

/**
 * The process's metrics when TIDINGS_METRICS is on (null when off), with the gauges read at scrape time.
 * prom-client is loaded only then: every other command starts without it.
 */
export async function createMetrics(
  config: Config,
  store: Store,
  log: Logger,
): Promise<PrometheusMetrics | null> {
  if (config.metrics === null) return null;
  const { PrometheusMetrics } = await import('../lib/metricsRegistry.js');
  return new PrometheusMetrics({
    probes: {
      queues: () => queueSizes(store),
      feeds: () => feedBacklog(store),
      pool: () => store.poolStats(),
      pendingSaves: () => pendingSaves(store),
    },
    onProbeError: (probe, err) => log.warn({ err, probe }, 'a metrics query failed; its gauges are left out'),
  });
}

/** A running metrics listener and where it listens. */
export interface MetricsListener {
  app: FastifyInstance;
  /** http://host:port/metrics, the port as bound (TIDINGS_METRICS_PORT=0 picks a free one). */
  url: string;
}

/** Serves GET /metrics on the metrics listener; an address that cannot be bound is the operator's to fix. */
export async function listenMetrics(
  config: MetricsConfig,
  metrics: PrometheusMetrics,
  log: Logger,
): Promise<MetricsListener> {
  const app = buildMetricsServer({
    metrics,
    token: config.token,
    logger: log.child({ listener: 'metrics' }),
  });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await app.close();
    const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      const settings = ['TIDINGS_METRICS_PORT', 'TIDINGS_METRICS_HOST'] as const;
      throw cannotListen('metrics', `${config.host}:${config.port}`, code, settings);
    }
    throw err;
  }
  const address = app.server.address();
  const port = address !== null && typeof address !== 'string' ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return { app, url: `http://${host}:${port}/metrics` };
}
