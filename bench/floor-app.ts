/**
 * What the minimal apps of bench/api-floor.ts share (bench/floor-server.ts on SQLite, bench/floor-server-pg.ts
 * on PostgreSQL): the Fastify app with a pino logger writing one line per request as Tidings does, the form
 * body, the key check (SHA-256 compared with the stored hash on every request), `new URL`, the batching by
 * turn, and Tidings' "saved" answer. The storage part is passed in: where the key is looked up and how a
 * batch is made durable.
 *
 * Batching: the saves of one account that arrive in one turn of the event loop are written together, and
 * each is answered only once that write has returned. An account has one write at a time (as in Tidings):
 * saves that arrive meanwhile wait for it, and are written together in the turn after it returned.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { parse, type ParsedUrlQuery } from 'node:querystring';
import Fastify from 'fastify';
import pino from 'pino';

/** A key's account, and the SHA-256 of the whole key (hex) as stored. */
export interface FloorCredential {
  accountId: number;
  keyHash: string;
}

export interface FloorSave {
  url: string;
  title: string;
}

export interface FloorStorage {
  /** The credential of the key's prefix (the caller compares the hash), or undefined. */
  credential(key: string): FloorCredential | undefined | Promise<FloorCredential | undefined>;
  /** Makes one account's batch durable (its queue_version advanced, its rows inserted); throws if it fails. */
  saveBatch(accountId: number, saves: readonly FloorSave[]): void | Promise<void>;
  close(): void | Promise<void>;
}

export const sha256 = (s: string): Buffer => createHash('sha256').update(s).digest();

interface Pending extends FloorSave {
  resolve: () => void;
  reject: (err: Error) => void;
}

/** The batching by turn, per account, with one write at a time per account. */
class Batcher {
  private readonly pending = new Map<number, Pending[]>();
  /** Accounts with a write under way or a flush scheduled. */
  private readonly busy = new Set<number>();

  constructor(private readonly storage: FloorStorage) {}

  save(accountId: number, save: FloorSave): Promise<void> {
    return new Promise((resolve, reject) => {
      const queue = this.pending.get(accountId);
      if (queue === undefined) this.pending.set(accountId, [{ ...save, resolve, reject }]);
      else queue.push({ ...save, resolve, reject });
      this.schedule(accountId);
    });
  }

  private schedule(accountId: number): void {
    if (this.busy.has(accountId) || !this.pending.has(accountId)) return;
    this.busy.add(accountId);
    setImmediate(() => void this.flush(accountId));
  }

  private async flush(accountId: number): Promise<void> {
    const batch = this.pending.get(accountId) ?? [];
    this.pending.delete(accountId);
    try {
      await this.storage.saveBatch(accountId, batch);
      for (const p of batch) p.resolve();
    } catch (err) {
      for (const p of batch) p.reject(err instanceof Error ? err : new Error('the write failed'));
    } finally {
      this.busy.delete(accountId);
      this.schedule(accountId);
    }
  }
}

const saved = '{"code":0,"message":"saved for the next digest"}';
const first = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

/** Serves POST /api/v1/articles on a free port of 127.0.0.1, prints {"port": N}, and stops on SIGTERM. */
export async function serveFloor(storage: FloorStorage): Promise<void> {
  const batcher = new Batcher(storage);
  // One log line per request, written when it completes, as Tidings writes it (Fastify's own logging
  // writes two: "incoming request" and "request completed").
  const app = Fastify({
    loggerInstance: pino(pino.destination({ dest: '/dev/null', sync: false })),
    disableRequestLogging: true,
  });
  app.addHook('onResponse', (req, reply, done) => {
    const url = req.url.replace(/([?&]apiKey=)[^&]*/, '$1***');
    const fields = { method: req.method, url, status: reply.statusCode, ms: reply.elapsedTime, ip: req.ip };
    req.log.info(fields, 'request');
    done();
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, parse(body.toString()));
  });

  app.post<{ Querystring: { apiKey?: string }; Body: ParsedUrlQuery }>(
    '/api/v1/articles',
    async (req, reply) => {
      const key = req.query.apiKey ?? '';
      const cred = await storage.credential(key);
      if (cred === undefined || !timingSafeEqual(sha256(key), Buffer.from(cred.keyHash, 'hex'))) {
        return reply.code(401).send({ code: 40102, message: 'unknown API key' });
      }
      let url: string;
      try {
        url = new URL(first(req.body.url) ?? '').href;
      } catch {
        return reply.code(400).send({ code: 40001, message: 'url is not a valid URL' });
      }
      await batcher.save(cred.accountId, { url, title: first(req.body.title) ?? url });
      return reply
        .header('content-type', 'application/json; charset=utf-8')
        .header('cache-control', 'no-store')
        .header('access-control-allow-origin', '*')
        .header('access-control-expose-headers', 'Retry-After')
        .send(saved);
    },
  );

  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
  process.once('SIGTERM', () => {
    void app.close().then(() => storage.close());
  });
}
