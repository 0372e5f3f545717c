/** The rule that tells an unreachable database from a bug, on the real errors of the real drivers. */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, test } from 'node:test';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { ADMIN_URL, type TestDatabase, createTestDatabase, postgresSkipReason } from '../test/databases.js';
import { freePort, startTcpProxy } from '../test/process.js';
import { isDatabaseUnavailable, isDiskFull } from './db.js';

const pgSkip = await postgresSkipReason();
const databases: TestDatabase[] = [];
after(() => Promise.all(databases.map((d) => d.drop())));

/** The error `fn` rejects with. */
async function failure(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a failure');
}

test('SQLite: busy is unavailable, a constraint is not', async () => {
  const database = await createTestDatabase('sqlite');
  databases.push(database);
  const holder = new SQLite(database.url);
  const other = new SQLite(database.url);
  try {
    holder.pragma('journal_mode = WAL');
    holder.exec('create table t (x integer primary key)');
    other.pragma('busy_timeout = 0');
    holder.exec('begin immediate');
    const busy = await failure(() => Promise.resolve(other.exec('insert into t values (1)')));
    holder.exec('rollback');
    assert.match(String(busy), /locked|busy/i);
    assert.equal(isDatabaseUnavailable(busy), true);
    holder.exec('insert into t values (1)');
    const constraint = await failure(() => Promise.resolve(holder.exec('insert into t values (1)')));
    assert.equal(isDatabaseUnavailable(constraint), false);
  } finally {
    holder.close();
    other.close();
  }
});

test('SQLite: a full database (SQLITE_FULL) is unavailable and a full disk', async () => {
  const database = await createTestDatabase('sqlite');
  databases.push(database);
  const db = new SQLite(database.url);
  try {
    db.exec('create table t (x text)');
    // No more pages than it has: the next page it needs is refused, as a full disk refuses it.
    db.pragma(`max_page_count = ${Number(db.pragma('page_count', { simple: true }))}`);
    const full = await failure(() =>
      Promise.resolve(db.prepare('insert into t values (?)').run('x'.repeat(9000))),
    );
    assert.equal((full as { code?: string }).code, 'SQLITE_FULL');
    assert.equal(isDatabaseUnavailable(full), true);
    assert.equal(isDiskFull(full), true);
    assert.equal(isDiskFull(new Error('wrapped', { cause: full })), true);
    const syntax = await failure(() => Promise.resolve(db.exec('selec 1')));
    assert.equal(isDiskFull(syntax), false);
  } finally {
    db.close();
  }
});

test(
  'PostgreSQL: a full disk (53100) and the other shortages of class 53 are unavailable; only 53100 is a full disk',
  { skip: pgSkip },
  async () => {
    const client = new pg.Client({ connectionString: ADMIN_URL });
    await client.connect();
    try {
      // The server's own errors, raised with the SQLSTATE each shortage has.
      const raised = (state: string) =>
        failure(() => client.query(`do $$ begin raise exception 'short' using errcode = '${state}'; end $$`));
      for (const [state, full] of [
        ['53100', true],
        ['53000', false],
        ['53200', false],
        ['53300', false],
        ['53400', false],
      ] as const) {
        const err = await raised(state);
        assert.equal((err as { code?: string }).code, state);
        assert.equal(isDatabaseUnavailable(err), true, state);
        assert.equal(isDiskFull(err), full, state);
      }
      const bug = await raised('22012');
      assert.equal(isDatabaseUnavailable(bug), false, 'a division by zero is a bug');
      assert.equal(isDiskFull(bug), false);
    } finally {
      await client.end();
    }
  },
);

test(
  'PostgreSQL: refused, cut and terminated connections are unavailable; a bad query is not',
  { skip: pgSkip },
  async () => {
    const refused = new pg.Client({
      connectionString: `postgres://postgres@127.0.0.1:${await freePort()}/x`,
    });
    assert.equal(isDatabaseUnavailable(await failure(() => refused.connect())), true, 'ECONNREFUSED');

    const database = await createTestDatabase('postgres');
    databases.push(database);
    const url = new URL(database.url);
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.host = `127.0.0.1:${proxy.port}`;
    const client = new pg.Client({ connectionString: url.toString() });
    client.on('error', () => undefined);
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    try {
      await client.connect();
      await admin.connect();
      const syntax = await failure(() => client.query('selec 1'));
      assert.equal(isDatabaseUnavailable(syntax), false, 'a syntax error is a bug');

      // pg's own errors for a lost connection carry no code.
      const sleeping = failure(() => client.query('select pg_sleep(5)'));
      await new Promise((resolve) => setTimeout(resolve, 100));
      await proxy.cut();
      const cut = await sleeping;
      assert.equal((cut as Error).message, 'Connection terminated unexpectedly');
      assert.equal(isDatabaseUnavailable(cut), true);
      const after = await failure(() => client.query('select 1'));
      assert.equal(
        (after as Error).message,
        'Client has encountered a connection error and is not queryable',
      );
      assert.equal(isDatabaseUnavailable(after), true);

      const victim = new pg.Client({ connectionString: database.url });
      victim.on('error', () => undefined);
      await victim.connect();
      const pid = (await victim.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid;
      const terminated = failure(() => victim.query('select pg_sleep(5)'));
      await new Promise((resolve) => setTimeout(resolve, 100));
      await admin.query('select pg_terminate_backend($1)', [pid]);
      const err = await terminated;
      assert.equal((err as { code?: string }).code, '57P01');
      assert.equal(isDatabaseUnavailable(err), true);
      await victim.end().catch(() => undefined);
    } finally {
      await client.end().catch(() => undefined);
      await admin.end();
      await proxy.close();
    }
  },
);

test("an HTTP client that aborts its request (Node's ECONNRESET) is not a database failure", async () => {
  const seen = new Promise<unknown>((resolve) => {
    const server = http.createServer((req) => {
      req.on('error', (err) => {
        resolve(err);
        server.close();
      });
      req.resume();
    });
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nhalf');
        setTimeout(() => socket.destroy(), 50);
      });
    });
  });
  const err = await seen;
  assert.equal((err as { code?: string }).code, 'ECONNRESET');
  assert.equal(isDatabaseUnavailable(err), false);
});
