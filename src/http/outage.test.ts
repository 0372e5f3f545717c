/**
 * A real server over TCP whose database connections are cut under load: every failure is a 503 with
 * Retry-After (the API's JSON, the web's page), never a 500, and no acknowledged save is lost. A client
 * that goes away mid-body is no database outage.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { createLogger } from '../logger.js';
import { type Store, openStore } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';
import { ADMIN_URL, type TestDatabase, createTestDatabase, postgresSkipReason } from '../test/databases.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { WebClient } from '../test/webClient.js';
import { buildServer } from './server.js';

interface LogLine {
  level: number;
  msg: string;
  err?: { message?: string };
}

/** A listening server whose log lines (the real pino output, from debug up) are kept. */
async function listening(store: Store): Promise<{ app: FastifyInstance; base: string; log: LogLine[] }> {
  const log: LogLine[] = [];
  const app = buildServer({
    config: { trustProxy: false, queueLimit: 100_000, baseUrl: 'http://127.0.0.1:8080' },
    store,
    logger: createLogger('debug', { write: (line: string) => log.push(JSON.parse(line) as LogLine) }),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as net.AddressInfo;
  return { app, base: `http://127.0.0.1:${port}`, log };
}

async function until(what: string, check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Sends a request's head and part of its body, then closes the connection. */
function abortMidBody(base: string, path: string, headers: string): Promise<void> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\n${headers}Content-Length: 1000\r\n\r\nurl=https%3A`);
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 50);
    });
    socket.on('error', reject);
  });
}

await describeEachEngine('a client that aborts mid-body', (ctx) => {
  let server: Awaited<ReturnType<typeof listening>>;
  before(async () => {
    server = await listening(ctx.store());
  });
  after(() => server.app.close());

  test('is logged at debug, not as a database outage, on the API and on a web form', async () => {
    const { apiKey } = await newAccount(ctx.store());
    const web = new WebClient(server.app);
    await web.signIn(apiKey);
    const form = 'Content-Type: application/x-www-form-urlencoded\r\n';
    const cookies = [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    await abortMidBody(server.base, `/api/v1/articles?apiKey=${apiKey}`, form);
    await abortMidBody(server.base, '/api', form);
    await abortMidBody(server.base, '/queue', `${form}Cookie: ${cookies}\r\n`);
    const aborted = (): LogLine[] => server.log.filter((l) => l.err?.message === 'aborted');
    await until('a line for each abort', () => aborted().length === 3);
    for (const line of aborted()) {
      assert.deepEqual([line.level, line.msg], [20, 'client closed the connection'], JSON.stringify(line));
    }
    const loud = server.log.filter((l) => l.level >= 40);
    assert.deepEqual(loud, [], 'no warn or error line');
  });
});

describe('database connections cut under load [postgres]', { skip: await postgresSkipReason() }, () => {
  let database: TestDatabase;
  let store: Store;
  let server: Awaited<ReturnType<typeof listening>>;
  let admin: pg.Client;
  before(async () => {
    database = await createTestDatabase('postgres');
    store = openStore(database.url);
    await migrateToLatest(store);
    server = await listening(store);
    admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
  });
  after(async () => {
    await admin.end();
    await server.app.close();
    await store.close();
    await database.drop();
  });

  test('pg_terminate_backend during a flood of saves: only 2xx/303 and 503 with Retry-After, none lost', async () => {
    const { apiKey } = await newAccount(store);
    const web = new WebClient(server.app);
    await web.signIn(apiKey);
    const cookie = [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const name = new URL(database.url).pathname.slice(1);
    const statuses = new Map<string, number>();
    const count = (key: string): void => void statuses.set(key, (statuses.get(key) ?? 0) + 1);
    const acknowledged: string[] = [];
    let next = 0;
    let stop = false;

    /** One save through the API or the web's form; its answer checked and counted. */
    async function save(via: 'api' | 'web'): Promise<void> {
      const url = `https://example.com/${via}/${next++}`;
      const res =
        via === 'api'
          ? await fetch(`${server.base}/api/v1/articles?apiKey=${apiKey}`, {
              method: 'POST',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: new URLSearchParams({ url }).toString(),
            })
          : await fetch(`${server.base}/queue`, {
              method: 'POST',
              redirect: 'manual',
              headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', cookie },
              body: new URLSearchParams({ url, _csrf: web.csrf }).toString(),
            });
      const body = await res.text();
      count(`${via} ${res.status}`);
      if (res.status === 200 || res.status === 201 || res.status === 303) {
        acknowledged.push(url);
        return;
      }
      assert.equal(res.status, 503, `${via}: ${res.status} ${body.slice(0, 300)}`);
      assert.equal(res.headers.get('retry-after'), '5', `${via}: a 503 says when to come back`);
      if (via === 'api') {
        assert.deepEqual(JSON.parse(body), {
          code: 50301,
          message: 'the database is unavailable; try again shortly',
        });
      } else {
        assert.match(String(res.headers.get('content-type')), /^text\/html/);
        assert.match(body, /The database cannot be reached right now/);
      }
    }
    const flood = async (via: 'api' | 'web'): Promise<void> => {
      try {
        while (!stop) await save(via);
      } finally {
        stop = true;
      }
    };
    const cut = async (): Promise<void> => {
      const end = Date.now() + 15_000;
      // Until enough saves met a cut connection (or time is up), every 30 ms.
      const failed = (): number => (statuses.get('api 503') ?? 0) + (statuses.get('web 503') ?? 0);
      while (!stop && failed() < 60 && Date.now() < end) {
        await admin.query(
          'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
          [name],
        );
        await sleep(30);
      }
      stop = true;
    };
    await Promise.all([
      cut(),
      ...Array.from({ length: 6 }, () => flood('api')),
      ...Array.from({ length: 2 }, () => flood('web')),
    ]);
    const summary = JSON.stringify(Object.fromEntries(statuses));
    assert.ok((statuses.get('api 200') ?? 0) > 0 && (statuses.get('web 303') ?? 0) > 0, summary);
    assert.ok((statuses.get('api 503') ?? 0) > 0 && (statuses.get('web 503') ?? 0) > 0, summary);

    const listed = await fetch(`${server.base}/api/v1/articles?apiKey=${apiKey}`);
    assert.equal(listed.status, 200);
    const urls = new Set(((await listed.json()) as { url: string }[]).map((i) => i.url));
    assert.deepEqual(
      acknowledged.filter((url) => !urls.has(url)),
      [],
      'every acknowledged save is in the queue',
    );
    const errors = server.log.filter((l) => l.level >= 50).map((l) => `${l.msg}: ${l.err?.message}`);
    assert.deepEqual(errors, [], 'no failure was taken for a bug');
  });
});
