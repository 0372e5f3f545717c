/**
 * The DATABASE_* settings against the real PostgreSQL: TLS modes (through a TLS proxy, as the local server
 * has none), the CA file, the statement timeout, the pool size. And on SQLite, that they change nothing.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { ConfigError } from '../config.js';
import { ADMIN_URL, type TestDatabase, createTestDatabase, postgresSkipReason } from '../test/databases.js';
import { type TlsProxy, startTlsProxy } from '../test/tlsProxy.js';
import { type Store, type StoreOptions, openStore, pingStore } from './db.js';
import { pgPoolConfig } from '../lib/pgConfig.js';

const pgSkip = await postgresSkipReason();

/** Opens a store, runs `fn`, closes it. */
async function using<T>(url: string, options: StoreOptions, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = openStore(url, options);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** The error `fn` rejects with. */
async function failure(fn: () => Promise<unknown>): Promise<Error> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof Error, String(err));
    return err;
  }
  assert.fail('expected a failure');
}

test('a URL without TLS parameters goes to node-postgres as it is', () => {
  const url = 'postgres://u:p@db.example:5432/tidings?application_name=x';
  assert.deepEqual(pgPoolConfig(url, { poolSize: 7 }), { connectionString: url, max: 7 });
  assert.deepEqual(pgPoolConfig(url, { poolSize: 7, statementTimeoutMs: 1500 }), {
    connectionString: url,
    max: 7,
    statement_timeout: 1500,
  });
});

test('sslmode: the TLS options of each mode; the TLS parameters are taken out of the URL', () => {
  const base = 'postgres://u@db.example/tidings';
  const ssl = (query: string): unknown => pgPoolConfig(`${base}?${query}`, { poolSize: 1 }).ssl;
  assert.equal(ssl('sslmode=disable'), false);
  const require = ssl('sslmode=require') as { rejectUnauthorized?: boolean; checkServerIdentity?: unknown };
  assert.equal(require.rejectUnauthorized, false, 'require: encrypted, certificate not checked');
  const ca = ssl('sslmode=verify-ca') as { rejectUnauthorized?: boolean; checkServerIdentity?: unknown };
  assert.equal(ca.rejectUnauthorized, undefined, 'verify-ca: the chain is checked');
  assert.equal(typeof ca.checkServerIdentity, 'function', 'verify-ca: any host name');
  assert.deepEqual(ssl('sslmode=verify-full'), {}, 'verify-full: node’s defaults check chain and name');
  assert.deepEqual(ssl('ssl=true'), {}, 'pg’s ssl=true stays verify-full');
  const config = pgPoolConfig(`${base}?sslmode=require&application_name=x`, { poolSize: 1 });
  assert.equal(config.connectionString, `${base}?application_name=x`);
  for (const mode of ['prefer', 'allow', 'no-verify', 'Require']) {
    assert.throws(
      () => ssl(`sslmode=${mode}`),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.message.includes(
          `sslmode=${mode} is not supported; use disable, require, verify-ca, verify-full`,
        ),
    );
  }
});

test('a CA file that cannot be read is a configuration error naming the setting and the file', () => {
  const missing = join(tmpdir(), 'tidings-no-such-ca.pem');
  assert.throws(
    () => openStore('postgres://u@db.example/tidings', { caFile: missing }),
    (err: unknown) =>
      err instanceof ConfigError &&
      err.message === `invalid configuration:\n  DATABASE_CA_FILE: cannot read ${missing} (ENOENT)`,
  );
  assert.throws(
    () => openStore(`postgres://u@db.example/tidings?sslmode=verify-ca&sslrootcert=${missing}`),
    (err: unknown) =>
      err instanceof ConfigError && err.message.includes('DATABASE_URL sslrootcert: cannot read'),
  );
});

test('on SQLite the PostgreSQL settings change nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tidings-pgconfig-'));
  try {
    const options = { caFile: join(dir, 'missing.pem'), statementTimeoutMs: 1, poolSize: 1 };
    await using(join(dir, 'tidings.db'), options, async (store) => {
      const row = await sql<{ n: number }>`select 1 as n`.execute(store.db);
      assert.deepEqual(row.rows, [{ n: 1 }]);
      assert.equal(store.poolStats(), null);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

describe('PostgreSQL connection settings [postgres]', { skip: pgSkip }, () => {
  let database: TestDatabase;
  let proxy: TlsProxy;
  /** The test database's URL through the TLS proxy, at `host` (127.0.0.1 matches its certificate). */
  const viaTls = (query: string, host = '127.0.0.1'): string => {
    const url = new URL(database.url);
    url.host = `${host}:${proxy.port}`;
    return `${url.toString()}?${query}`;
  };
  before(async () => {
    database = await createTestDatabase('postgres');
    const admin = new URL(ADMIN_URL);
    proxy = await startTlsProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
  });
  after(async () => {
    await proxy.close();
    await database.drop();
  });

  test('sslmode=require against a server without TLS fails at once, saying so; disable connects', async () => {
    const err = await failure(() => using(`${database.url}?sslmode=require`, {}, pingStore));
    assert.equal(err.message, 'The server does not support SSL connections');
    await using(`${database.url}?sslmode=disable`, {}, pingStore);
  });

  test('TLS: require takes any certificate; verify-ca and verify-full need the CA file; verify-full the name', async () => {
    const before = proxy.handshakes();
    await using(viaTls('sslmode=require'), {}, pingStore);
    assert.equal(proxy.handshakes(), before + 1, 'the connection was encrypted');
    for (const mode of ['verify-ca', 'verify-full']) {
      const err = await failure(() => using(viaTls(`sslmode=${mode}`), {}, pingStore));
      assert.equal(err.message, 'self-signed certificate', `${mode} without the CA`);
    }
    const caFile = proxy.caFile;
    await using(viaTls('sslmode=verify-ca'), { caFile }, pingStore);
    await using(viaTls('sslmode=verify-full'), { caFile }, pingStore);
    await using(viaTls(`sslmode=verify-full&sslrootcert=${encodeURIComponent(caFile)}`), {}, pingStore);
    await using(viaTls(''), { caFile }, pingStore); // a CA file alone means verify-full
    // The certificate names 127.0.0.1, not localhost: only verify-full minds.
    await using(viaTls('sslmode=verify-ca', 'localhost'), { caFile }, pingStore);
    const err = await failure(() => using(viaTls('sslmode=verify-full', 'localhost'), { caFile }, pingStore));
    assert.match(err.message, /^Hostname\/IP does not match certificate's altnames/);
    // require with a CA checks the chain (libpq's rule): a certificate another CA signed is refused.
    const other = await startTlsProxy({ host: '127.0.0.1', port: proxy.port });
    try {
      const wrong = await failure(() =>
        using(viaTls('sslmode=require'), { caFile: other.caFile }, pingStore),
      );
      assert.equal(wrong.message, 'self-signed certificate');
    } finally {
      await other.close();
    }
  });

  test('the statement timeout cancels a longer statement with a clear error; 0 lets it run', async () => {
    await using(database.url, { statementTimeoutMs: 200 }, async (store) => {
      const err = await failure(() => sql`select pg_sleep(1)`.execute(store.db));
      assert.equal(err.message, 'canceling statement due to statement timeout');
      assert.equal((err as Error & { code?: string }).code, '57014');
      const shown = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(store.db);
      assert.deepEqual(shown.rows, [{ statement_timeout: '200ms' }]);
    });
    await using(database.url, { statementTimeoutMs: 0 }, async (store) => {
      await sql`select pg_sleep(0.3)`.execute(store.db);
      const shown = await sql<{ statement_timeout: string }>`show statement_timeout`.execute(store.db);
      assert.deepEqual(shown.rows, [{ statement_timeout: '0' }]);
    });
  });

  test('the pool opens no more connections than its size, however many statements wait', async () => {
    const name = new URL(database.url).pathname.slice(1);
    await using(database.url, { poolSize: 3 }, async (store) => {
      let most = 0;
      await Promise.all(
        Array.from({ length: 9 }, async () => {
          const r = await sql<{ n: number }>`
            select (select count(*) from pg_stat_activity where datname = ${name})::int as n
            from pg_sleep(0.1)`.execute(store.db);
          most = Math.max(most, r.rows[0]?.n ?? 0);
        }),
      );
      assert.equal(most, 3, 'three sessions at once, no more');
      assert.equal(store.poolStats()?.total, 3);
    });
  });
});
