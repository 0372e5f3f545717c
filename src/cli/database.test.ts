/**
 * Starting with the database away (serve and worker as real processes, PostgreSQL behind a TCP proxy that
 * is cut and restored), an outage after acknowledged saves, and the DATABASE_* settings as the commands
 * apply them.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { type TestContext, after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { openStore } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';
import {
  ADMIN_URL,
  ENGINES,
  type TestDatabase,
  createTestDatabase,
  postgresSkipReason,
} from '../test/databases.js';
import {
  type TcpProxy,
  assertBuilt,
  createAccountViaCli,
  freePort,
  request,
  runCli,
  startServer,
  startTcpProxy,
} from '../test/process.js';
import { migrateDatabase, openServerStore, retryDelayMs } from './database.js';

assertBuilt();
const pgSkip = await postgresSkipReason();
const quiet = createLogger('silent');

test('the retry schedule: 250 ms doubling, at most 5 s', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 20].map(retryDelayMs),
    [250, 500, 1000, 2000, 4000, 5000, 5000, 5000],
  );
});

for (const engine of ENGINES) {
  test(
    `serve starts at once with DATABASE_STARTUP_TIMEOUT_MS=0 when the database is there [${engine}]`,
    {
      skip: engine === 'postgres' ? pgSkip : undefined,
    },
    async () => {
      const db = await createTestDatabase(engine);
      try {
        const server = await startServer({ databaseUrl: db.url, env: { DATABASE_STARTUP_TIMEOUT_MS: '0' } });
        assert.equal((await request(`${server.baseUrl}/readyz`)).status, 200);
        assert.doesNotMatch(server.stderr(), /database unreachable/);
        await server.stop();
      } finally {
        await db.drop();
      }
    },
  );
}

describe('PostgreSQL away at start and during an outage [postgres]', { skip: pgSkip }, () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  /** The test database's URL through the proxy. */
  let viaProxy: string;
  before(async () => {
    database = await createTestDatabase('postgres');
    const admin = new URL(ADMIN_URL);
    proxy = await startTcpProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
    const url = new URL(database.url);
    url.host = `127.0.0.1:${proxy.port}`;
    viaProxy = url.toString();
  });
  after(async () => {
    await proxy.close();
    await database.drop();
  });

  for (const command of ['serve', 'worker']) {
    test(`${command} retries, then exits 1 with the reason once DATABASE_STARTUP_TIMEOUT_MS has passed`, async () => {
      await proxy.cut();
      const began = Date.now();
      const port = String(await freePort());
      const r = await runCli([command], {
        DATABASE_URL: viaProxy,
        PORT: port,
        DATABASE_STARTUP_TIMEOUT_MS: '1500',
      });
      const took = Date.now() - began;
      assert.equal(r.code, 1, r.stderr);
      const last = r.stderr.trim().split('\n').at(-1) ?? '';
      assert.match(
        last,
        new RegExp(
          `^tidings: the database at postgres://postgres@127\\.0\\.0\\.1:${proxy.port}/\\w+ cannot be reached: ` +
            `connect ECONNREFUSED 127\\.0\\.0\\.1:${proxy.port} \\(\\d attempts in 1\\.[5-9] s; DATABASE_STARTUP_TIMEOUT_MS=1500\\)$`,
        ),
      );
      const retries = r.stderr
        .split('\n')
        .filter((line) => line.includes('"msg":"database unreachable; retrying"'));
      assert.ok(retries.length >= 3, r.stderr);
      // The window is timed inside the process (the message says 1.5 s and more); starting Node is not in it.
      assert.ok(took >= 1500, `exited after ${took} ms`);
      await proxy.restore();
    });
  }

  test('serve started while PostgreSQL is away comes up once it is back, within the window', async () => {
    await proxy.cut();
    let restored: Promise<void> | undefined;
    const server = await startServer({
      databaseUrl: viaProxy,
      env: { DATABASE_STARTUP_TIMEOUT_MS: '20000' },
      // Back once the process has met it away twice.
      onStderr: (text) => {
        if (restored === undefined && text.split('database unreachable; retrying').length > 2) {
          restored = proxy.restore();
        }
      },
    });
    await restored;
    try {
      assert.match(server.stderr(), /"msg":"database unreachable; retrying"/);
      assert.equal((await request(`${server.baseUrl}/readyz`)).status, 200);
    } finally {
      await server.stop();
    }
  });

  test('an outage: /readyz 503 while away and 200 after; every save answered 2xx before it is kept', async () => {
    const server = await startServer({ databaseUrl: viaProxy });
    try {
      const { apiKey: key } = await createAccountViaCli(database.url, 'outage');
      const api = `${server.baseUrl}/api/v1/articles?apiKey=${key}`;
      const saved: string[] = [];
      await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const url = `https://example.com/before/${i}`;
          const res = await request(api, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ url }),
          });
          assert.ok(res.status >= 200 && res.status < 300, `${res.status} ${res.body}`);
          saved.push(url);
        }),
      );
      await proxy.cut();
      await delay(200);
      const ready = await request(`${server.baseUrl}/readyz`);
      assert.equal(ready.status, 503, ready.body);
      assert.equal((await request(api)).status, 503, 'the API says so too');
      assert.equal((await request(`${server.baseUrl}/healthz`)).status, 200);
      await proxy.restore();
      assert.equal((await request(`${server.baseUrl}/readyz`)).status, 200);
      const listed = await request(api);
      assert.equal(listed.status, 200, listed.body);
      const urls = new Set((JSON.parse(listed.body) as { url: string }[]).map((item) => item.url));
      assert.deepEqual(
        saved.filter((url) => !urls.has(url)),
        [],
        'every 2xx before the outage is in the queue',
      );
      assert.equal(saved.length, 40);
    } finally {
      await server.stop();
    }
  });

  test('sslmode=require against a server without TLS: exits 1 at once, saying why', async () => {
    const port = String(await freePort());
    const r = await runCli(['serve'], { DATABASE_URL: `${database.url}?sslmode=require`, PORT: port });
    assert.equal(r.code, 1, r.stderr);
    assert.match(
      r.stderr.trim().split('\n').at(-1) ?? '',
      /^tidings: cannot connect to the database at postgres:\/\/postgres@127\.0\.0\.1:5432\/\w+\?sslmode=require: The server does not support SSL connections$/,
    );
    assert.doesNotMatch(r.stderr, /database unreachable; retrying/, 'no retry: waiting would not help');
  });
});

/**
 * A port another program holds: `serve` told to listen there fails with EADDRINUSE once it tries, so a
 * configuration error reported instead shows that serve checked before binding anything.
 */
async function heldPort(t: TestContext): Promise<string> {
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => holder.close(() => resolve())));
  const address = holder.address();
  assert.ok(address !== null && typeof address === 'object');
  return String(address.port);
}

describe('a configuration error is exit 2 before serve listens', () => {
  const missing = join(tmpdir(), 'tidings-missing-ca.pem');
  const cases: [string, Record<string, string>, string][] = [
    [
      'a DATABASE_CA_FILE that is not there',
      { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/tidings', DATABASE_CA_FILE: missing },
      `tidings: invalid configuration:\n  DATABASE_CA_FILE: cannot read ${missing} (ENOENT)`,
    ],
    [
      'an sslrootcert in DATABASE_DIRECT_URL that is not there',
      {
        DATABASE_URL: 'postgres://postgres@127.0.0.1:6432/tidings',
        DATABASE_DIRECT_URL: `postgres://postgres@127.0.0.1:5432/tidings?sslrootcert=${missing}`,
      },
      `tidings: invalid configuration:\n  DATABASE_URL sslrootcert: cannot read ${missing} (ENOENT)`,
    ],
    [
      'an sslmode node-postgres cannot honour',
      { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/tidings?sslmode=prefer' },
      'tidings: invalid configuration:\n  DATABASE_URL: sslmode=prefer is not supported; use disable, require, verify-ca, verify-full (docs/operating.md#postgresql-tls)',
    ],
    [
      'a DATABASE_URL of another database',
      { DATABASE_URL: 'mysql://root:secret@127.0.0.1/tidings' },
      'tidings: unsupported DATABASE_URL scheme in mysql://root:[redacted]@127.0.0.1/tidings: use a file path, sqlite:PATH or postgres://',
    ],
  ];
  test('any command: another database in DATABASE_URL is exit 2 with one line (was: exit 1, a stack trace)', async () => {
    const r = await runCli(['account', 'list'], { DATABASE_URL: 'mysql://root@127.0.0.1/tidings' });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(
      r.stderr,
      'tidings: unsupported DATABASE_URL scheme in mysql://root@127.0.0.1/tidings: use a file path, sqlite:PATH or postgres://\n',
    );
  });
  for (const [what, vars, message] of cases) {
    test(`${what}: exit 2 saying so, not that the port is taken`, async (t) => {
      const r = await runCli(['serve'], { ...vars, PORT: await heldPort(t), HOST: '127.0.0.1' });
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stderr.trim(), message);
    });
  }
});

describe('the settings as serve and worker open the store [postgres]', { skip: pgSkip }, () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase('postgres');
  });
  after(() => database.drop());

  test('DATABASE_STATEMENT_TIMEOUT_MS and DATABASE_POOL_SIZE reach the pool', async () => {
    const config = loadConfig({
      DATABASE_URL: database.url,
      DATABASE_STATEMENT_TIMEOUT_MS: '150',
      DATABASE_POOL_SIZE: '2',
    });
    const store = openServerStore(config, quiet);
    try {
      const err = await sql`select pg_sleep(0.5)`.execute(store.db).then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(
        err instanceof Error && err.message === 'canceling statement due to statement timeout',
        String(err),
      );
      await Promise.all(Array.from({ length: 6 }, () => sql`select pg_sleep(0.05)`.execute(store.db)));
      assert.equal(store.poolStats()?.total, 2);
    } finally {
      await store.close();
    }
  });

  test('migrations run without the statement timeout, over DATABASE_DIRECT_URL when set', async (t) => {
    const fresh = await createTestDatabase('postgres');
    t.after(() => fresh.drop());
    const admin = new URL(ADMIN_URL);
    const proxy = await startTcpProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
    t.after(() => proxy.close());
    // DATABASE_URL is cut off: the migrations can only have gone through DATABASE_DIRECT_URL.
    await proxy.cut();
    const away = new URL(fresh.url);
    away.host = `127.0.0.1:${proxy.port}`;
    const config = loadConfig({
      DATABASE_URL: away.toString(),
      DATABASE_DIRECT_URL: fresh.url,
      DATABASE_STATEMENT_TIMEOUT_MS: '1',
    });
    const store = openStore(config.databaseUrl, { poolSize: 1 });
    try {
      const applied = await migrateDatabase(config, store);
      assert.ok(applied.length > 10 && applied.every((m) => m.status === 'Success'));
    } finally {
      await store.close();
    }
    // The same migrations under a 1 ms statement timeout do not get through.
    const other = await createTestDatabase('postgres');
    t.after(() => other.drop());
    const timed = openStore(other.url, { statementTimeoutMs: 1 });
    try {
      await assert.rejects(migrateToLatest(timed), /statement timeout/);
    } finally {
      await timed.close();
    }
  });
});
