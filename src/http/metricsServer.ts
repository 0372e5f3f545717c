import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { PrometheusMetrics } from '../lib/metricsRegistry.js';
import { bearerDigest, requireBearer } from './bearer.js';
import { ApiError, sendErrorResponse, toErrorResponse } from './errors.js';

export interface MetricsServerDeps {
  metrics: PrometheusMetrics;
  /** When set, a scrape must send `Authorization: Bearer <token>`. */
  token: string | null;
  logger: Logger;
}

/**
 * The metrics listener: GET /metrics in Prometheus's text format, and nothing else. It is a server of its
 * own (TIDINGS_METRICS_HOST, 127.0.0.1 by default), never the public one, so a reverse proxy in front of
 * Tidings cannot expose it by accident. Scrapes are not logged: one every 15 s would drown the log.
 */
export function buildMetricsServer(deps: MetricsServerDeps): FastifyInstance {
  const logger: FastifyBaseLogger = deps.logger;
  const app = Fastify({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    requestTimeout: 30_000,
    return503OnClosing: false,
  });
  app.setErrorHandler((err, request, reply) => sendErrorResponse(reply, toErrorResponse(err, request.log)));
  app.setNotFoundHandler((request) => {
    throw new ApiError('not_found', `nothing at ${request.method} ${request.url.split('?')[0] ?? ''}`);
  });
  const expected = deps.token === null ? null : bearerDigest(deps.token);
  app.get('/metrics', async (request, reply) => {
    if (expected !== null) {
      requireBearer(request.headers.authorization, expected, {
        missing: 'send the metrics token as Authorization: Bearer <token>',
        invalid: 'the metrics token is not valid',
      });
    }
    const text = await deps.metrics.render();
    return reply
      .header('content-type', deps.metrics.contentType)
      .header('cache-control', 'no-store')
      .send(text);
  });
  return app;
}
