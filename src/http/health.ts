import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.js';
import { type Store, pingStore } from '../store/db.js';

const READY_TIMEOUT_MS = 2000;

/** /healthz: the process answers. /readyz: it can also reach its database (for load balancers). */
export function registerHealth(app: FastifyInstance, store: Store): void {
  app.get('/healthz', () => ({ status: 'ok' }));

  app.get('/readyz', async () => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new Error(`no answer within ${READY_TIMEOUT_MS} ms`));
      }, READY_TIMEOUT_MS);
    });
    try {
      await Promise.race([pingStore(store), timeout]);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new ApiError('unavailable', `the database is not reachable: ${reason}`, { 'retry-after': '5' });
    } finally {
      clearTimeout(timer);
    }
    return { status: 'ok', database: store.engine };
  });
}
