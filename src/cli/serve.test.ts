/** `tidings serve` as a real process over real TCP: health, first-start key, log hygiene, shutdown, CORS. */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import {
  ADMIN_URL,
  ENGINES,
  type TestDatabase,
  createTestDatabase,
  postgresSkipReason,
} from '../test/databases.js';
import {
  type ServerProcess,
  type StartOptions,
  assertBuilt,
  exitWithin,
  request,
  startServer,
  startTcpProxy,
  tryConnect,
} from '../test/process.js';

assertBuilt();
const pgSkip = await postgresSkipReason();

const KEY_LINE = /^Its API key, shown only this once: (tdg_[0-9a-f]{76})$/m;

/** The key a first start printed on stdout (its stdout pipe may lag behind the "listening" line). */
async function printedKey(server: ServerProcess): Promise<string> {
  await until('an API key on stdout', () => KEY_LINE.test(server.stdout()), 2000).catch(() => undefined);
  const key = KEY_LINE.exec(server.stdout())?.[1];
  assert.ok(key !== undefined, `no API key on stdout:\n${server.stdout()}`);
  return key;
}

/** Asserts an error body is exactly {code: number, message: string}. */
function assertErrorBody(body: string): { code: number; message: string } {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(parsed).sort(), ['code', 'message'], body);
  assert.equal(typeof parsed.code, 'number', body);
  assert.equal(typeof parsed.message, 'string', body);
  return parsed as { code: number; message: string };
}

async function until(what: string, check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(20);
  }
}

/** Reads the next HTTP/1.1 response (a 1xx, or one framed by Content-Length) from a raw socket. */
function readResponse(socket: net.Socket): Promise<{ head: string; body: string }> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      buf = Buffer.concat([buf, chunk]);
      const sep = buf.indexOf('\r\n\r\n');
      if (sep === -1) return;
      const head = buf.subarray(0, sep).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (buf.length < sep + 4 + length) return;
      socket.off('data', onData);
      resolve({ head, body: buf.subarray(sep + 4, sep + 4 + length).toString('utf8') });
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.once('close', () => reject(new Error(`connection closed; got ${JSON.stringify(buf.toString())}`)));
  });
}

const IN_FLIGHT = { url: 'https://example.com/in-flight', title: 'In flight' };

/**
 * Trickles a POST across a SIGTERM: the headers (with Expect: 100-continue, so that the server's
 * "100 Continue" proves it is handling the request), half the body, SIGTERM, then (once the server is
 * shutting down and its listener is closed, with the process still waiting) the rest. The socket is
 * left open. Resolves with the final answer.
 */
async function postAcrossSigterm(
  server: ServerProcess,
  socket: net.Socket,
  key: string,
  connection: 'close' | 'keep-alive',
): Promise<{ head: string; body: string }> {
  await once(socket, 'connect');
  const body = JSON.stringify(IN_FLIGHT);
  const half = Math.floor(body.length / 2);
  const interim = readResponse(socket);
  socket.write(
    `POST /api/v1/articles?apiKey=${key} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n` +
      `Connection: ${connection}\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
  );
  assert.match((await interim).head, /^HTTP\/1\.1 100 /);
  const response = readResponse(socket);
  socket.write(body.slice(0, half));
  server.child.kill('SIGTERM');
  await until('the shutdown to start', () => server.stderr().includes('shutting down'));
  await until('the listener to close', async () => (await tryConnect(server.port)) === 'refused');
  assert.equal(server.child.exitCode, null, 'the process waits for the request in flight');
  socket.write(body.slice(half));
  return response;
}

for (const engine of ENGINES) {
  describe(`tidings serve over TCP [${engine}]`, { skip: engine === 'postgres' ? pgSkip : undefined }, () => {
    const databases: TestDatabase[] = [];
    const servers: ServerProcess[] = [];
    let shared: ServerProcess | undefined;

    async function freshDatabase(): Promise<TestDatabase> {
      const db = await createTestDatabase(engine);
      databases.push(db);
      return db;
    }
    async function start(opts: StartOptions): Promise<ServerProcess> {
      const server = await startServer(opts);
      servers.push(server);
      return server;
    }
    const sharedServer = (): ServerProcess => {
      if (shared === undefined) throw new Error('no shared server');
      return shared;
    };

    before(async () => {
      shared = await start({ databaseUrl: (await freshDatabase()).url });
    });

    after(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      for (const db of databases) await db.drop();
    });

    test('GET /healthz and GET /readyz answer 200 while the database is up', async () => {
      const { baseUrl } = sharedServer();
      const health = await request(`${baseUrl}/healthz`);
      assert.equal(health.status, 200);
      assert.deepEqual(JSON.parse(health.body), { status: 'ok' });
      const ready = await request(`${baseUrl}/readyz`);
      assert.equal(ready.status, 200, ready.body);
      assert.deepEqual(JSON.parse(ready.body), { status: 'ok', database: engine });
    });

    test('a CORS preflight gets 204, a wildcard origin, POST among the methods, and no credentials', async () => {
      const { baseUrl } = sharedServer();
      for (const path of ['/api/v1/articles', '/api', '/api/v1/articles/', '/api/']) {
        const res = await request(`${baseUrl}${path}`, {
          method: 'OPTIONS',
          headers: {
            origin: 'https://reader.example',
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type',
          },
        });
        assert.equal(res.status, 204, path);
        assert.equal(res.body, '', path);
        assert.equal(res.headers['access-control-allow-origin'], '*', path);
        const methods = (res.headers['access-control-allow-methods'] ?? '').split(',').map((m) => m.trim());
        assert.ok(methods.includes('POST'), `${path}: allow-methods ${methods.join(',')}`);
        assert.match(res.headers['access-control-allow-headers'] ?? '', /content-type/i, path);
        assert.equal(res.headers['access-control-allow-credentials'], undefined, path);
      }
      // The actual cross-origin request that follows the preflight is readable by the page too.
      const key = await printedKey(sharedServer());
      const post = await request(`${baseUrl}/api/v1/articles?apiKey=${key}`, {
        method: 'POST',
        headers: { origin: 'https://reader.example', 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://example.com/cors' }),
      });
      assert.equal(post.status, 200, post.body);
      assert.equal(post.headers['access-control-allow-origin'], '*');
      assert.equal(post.headers['access-control-allow-credentials'], undefined);
    });

    test('the first start prints a key and both curl lines; the second start prints no key', async () => {
      const db = await freshDatabase();
      const first = await start({ databaseUrl: db.url });
      const key = await printedKey(first);
      const lines = first.stdout().split('\n');
      const curlA = lines.filter((l) => l.includes(`/api/v1/articles?apiKey=${key}`));
      const curlB = lines.filter((l) => l.includes(`/api?api_key=${key}`));
      assert.equal(curlA.length, 1, first.stdout());
      assert.equal(curlB.length, 1, first.stdout());
      for (const line of [...curlA, ...curlB]) {
        assert.match(line, /^\s*curl /);
        assert.ok(line.includes(first.baseUrl), `${line} names ${first.baseUrl}`);
      }
      // The printed key works with both variants.
      const a = await request(`${first.baseUrl}/api/v1/articles?apiKey=${key}`);
      assert.equal(a.status, 200, a.body);
      assert.deepEqual(JSON.parse(a.body), []);
      const b = await request(`${first.baseUrl}/api?api_key=${key}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'url=https://example.com/',
      });
      assert.deepEqual([b.status, JSON.parse(b.body)], [200, { message: 'success' }]);
      first.child.kill('SIGTERM');
      assert.deepEqual(await exitWithin(first, 10_000), { code: 0, signal: null });

      const second = await start({ databaseUrl: db.url });
      const again = await request(`${second.baseUrl}/api?api_key=${key}`);
      assert.equal(again.status, 200, 'the first key still works after a restart');
      assert.deepEqual(JSON.parse(again.body), [
        { url: 'https://example.com/', title: 'https://example.com/' },
      ]);
      second.child.kill('SIGTERM');
      assert.equal((await exitWithin(second, 10_000)).code, 0);
      // All of its stdout has been read once it has exited.
      assert.doesNotMatch(second.stdout(), /tdg_/, 'a second start prints no key');
      assert.doesNotMatch(second.stdout(), /API key/);
    });

    test('an API key never reaches the log, however the query carries it', async () => {
      const server = await start({
        databaseUrl: (await freshDatabase()).url,
        env: { LOG_LEVEL: 'trace' },
      });
      const key = await printedKey(server);
      const encodedValue = Buffer.from(key).toString('hex').replace(/../g, '%$&');
      const { baseUrl } = server;
      const calls: { path: string; method?: string; body?: string; type?: string; status: number }[] = [
        { path: `/api/v1/articles?apiKey=${key}`, status: 200 },
        { path: `/api?api_key=${key}`, status: 200 },
        { path: `/api?api%5Fkey=${key}`, status: 200 },
        { path: `/api?api%5fkey=${key}&x=1`, status: 200 },
        { path: `/api/v1/articles?%61piKey=${key}`, status: 200 },
        { path: `/api/v1/articles/?apiKey=${encodedValue}`, status: 200 },
        { path: `/api?x=%zz&api_key=${key}&api_key=${key}`, status: 401 },
        { path: `/api/v1/articles?APIKEY=${key}`, status: 401 },
        { path: `/api/v1/articles?apiKey=${key}`, method: 'POST', body: 'url=ftp://x', status: 400 },
        { path: `/api/v1/articles?apiKey=${key}`, method: 'POST', type: 'json', body: '[1]', status: 400 },
        {
          path: `/api?api_key=${key}`,
          method: 'POST',
          type: 'json',
          body: '{"url":"http://a.example/"}',
          status: 200,
        },
        { path: `/api?api_key=${key}`, method: 'DELETE', status: 405 },
        { path: `/nowhere?apiKey=${key}`, status: 404 },
        { path: `/api%?api_key=${key}`, status: 400 },
        { path: `/api?api_key=${key}`, method: 'BREW', status: 400 },
        { path: `/api?api_key=${key}&pad=${'x'.repeat(20_000)}`, status: 431 },
      ];
      for (const c of calls) {
        const type = c.type === 'json' ? 'application/json' : 'application/x-www-form-urlencoded';
        const res = await request(`${baseUrl}${c.path}`, {
          method: c.method ?? 'GET',
          ...(c.body === undefined ? {} : { body: c.body, headers: { 'content-type': type } }),
        });
        assert.equal(res.status, c.status, `${c.method ?? 'GET'} ${c.path.slice(0, 80)}: ${res.body}`);
      }
      server.child.kill('SIGTERM');
      assert.equal((await exitWithin(server, 10_000)).code, 0);
      const log = server.stderr();
      const requestLines = log.split('\n').filter((l) => l.includes('"msg":"request"'));
      assert.ok(requestLines.length >= 12, `the requests were logged:\n${log}`);
      for (const line of requestLines) {
        const fields = JSON.parse(line) as Record<string, unknown>;
        assert.deepEqual(
          ['reqId', 'method', 'url', 'status', 'ms', 'ip'].filter((k) => !(k in fields)),
          [],
          `a request line lacks fields: ${line}`,
        );
      }
      assert.ok(log.includes('[redacted]'), 'the key parameters were logged, redacted');
      for (const secret of [key, key.slice(4), encodedValue]) {
        assert.ok(!log.includes(secret), `the log holds the API key:\n${log}`);
      }
    });

    test('SIGTERM with a request in flight: it gets its 200, new connections are refused, exit code 0', async () => {
      const db = await freshDatabase();
      const server = await start({ databaseUrl: db.url });
      const key = await printedKey(server);
      const socket = net.connect(server.port, '127.0.0.1');
      try {
        const { head, body } = await postAcrossSigterm(server, socket, key, 'close');
        assert.match(head, /^HTTP\/1\.1 200 /);
        assert.deepEqual(JSON.parse(body), { code: 0, message: 'saved for the next digest' });
        assert.deepEqual(await exitWithin(server, 5000), { code: 0, signal: null });
        assert.equal(await tryConnect(server.port), 'refused', 'no new connections after shutdown');
      } finally {
        socket.destroy();
      }
      const again = await start({ databaseUrl: db.url });
      const queue = await request(`${again.baseUrl}/api?api_key=${key}`);
      assert.deepEqual(JSON.parse(queue.body), [IN_FLIGHT]);
    });

    test('SIGTERM: a keep-alive client that holds its connection after the answer does not stall the exit', async () => {
      const server = await start({ databaseUrl: (await freshDatabase()).url });
      const key = await printedKey(server);
      const socket = net.connect(server.port, '127.0.0.1');
      try {
        const { head } = await postAcrossSigterm(server, socket, key, 'keep-alive');
        assert.match(head, /^HTTP\/1\.1 200 /);
        // Like a browser or a connection pool, the client leaves the idle connection open.
        const exit = await exitWithin(server, 5000).catch((err: unknown) => {
          throw new Error(
            `${err instanceof Error ? err.message : String(err)} after answering with\n${head}\n` +
              'the server waits on an idle keep-alive connection until its shutdown timeout',
          );
        });
        assert.deepEqual(exit, { code: 0, signal: null }, server.stderr());
      } finally {
        socket.destroy();
      }
    });

    if (engine === 'postgres') {
      test('/readyz answers 503 {code, message} once the database has been dropped', async () => {
        const db = await freshDatabase();
        const server = await start({ databaseUrl: db.url });
        assert.equal((await request(`${server.baseUrl}/readyz`)).status, 200);
        await db.drop(); // drop database … with (force): every connection of the server is cut
        const ready = await request(`${server.baseUrl}/readyz`);
        assert.equal(ready.status, 503, ready.body);
        assert.equal(assertErrorBody(ready.body).code, 50301);
        assert.equal(ready.headers['retry-after'], '5');
        assert.equal((await request(`${server.baseUrl}/healthz`)).status, 200, 'the process itself is fine');
      });

      test('while PostgreSQL is unreachable /readyz and the API answer 503; both recover when it is back', async () => {
        const db = await freshDatabase();
        const admin = new URL(ADMIN_URL);
        const proxy = await startTcpProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
        try {
          const viaProxy = new URL(db.url);
          viaProxy.host = `127.0.0.1:${proxy.port}`;
          const server = await start({ databaseUrl: viaProxy.toString() });
          const key = await printedKey(server);
          const api = `${server.baseUrl}/api/v1/articles?apiKey=${key}`;
          assert.equal((await request(`${server.baseUrl}/readyz`)).status, 200);

          await proxy.cut();
          await delay(200); // let the pool notice that its idle connections are gone
          const ready = await request(`${server.baseUrl}/readyz`);
          assert.equal(ready.status, 503, ready.body);
          assertErrorBody(ready.body);
          const get = await request(api);
          assert.equal(get.status, 503, get.body);
          assertErrorBody(get.body);
          const post = await request(api, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ url: 'https://example.com/outage' }),
          });
          assert.equal(post.status, 503, post.body);
          assertErrorBody(post.body);

          await proxy.restore();
          assert.equal((await request(`${server.baseUrl}/readyz`)).status, 200);
          const back = await request(api);
          assert.equal(back.status, 200, back.body);
          assert.deepEqual(JSON.parse(back.body), [], 'the POST during the outage saved nothing');
        } finally {
          await proxy.close();
        }
      });
    }
  });
}
