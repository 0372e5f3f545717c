import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.js';
import { type Store, checkWrites, isDiskFull, pingStore } from '../store/db.js';

const READY_TIMEOUT_MS = 2000;

/**
 * /healthz: the process answers. /readyz: it can also reach its database and, once a write failed for want
 * of disk space, write to it again (store/writeProbe.ts), for load balancers.
 */
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
      await Promise.race([ready(store), timeout]);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      const what = isDiskFull(err)
        ? 'the database cannot write, its disk is full'
        : 'the database is not reachable';
      throw new ApiError('unavailable', `${what}: ${reason}`, { 'retry-after': '5' });
    } finally {
      clearTimeout(timer);
    }
    return { status: 'ok', database: store.engine };
  });
}

async function ready(store: Store): Promise<void> {
  await pingStore(store);
  await checkWrites(store.db, store.engine);
}
