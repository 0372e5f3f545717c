/** `tidings healthcheck` as a real process against a real `serve` and against listeners that misbehave. */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, test } from 'node:test';
import { createTestDatabase } from '../test/databases.js';
import { assertBuilt, freePort, runCli, startServer } from '../test/process.js';
import { localOrigin } from '../config.js';

assertBuilt();

const closers: (() => Promise<void>)[] = [];
after(async () => {
  for (const close of closers.reverse()) await close();
});

/** A loopback listener; `handle` answers (or not) each request. Closed after the file's tests. */
async function listen(handle: http.RequestListener): Promise<number> {
  const server = http.createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return address.port;
}

test('exits 0 when serve answers /healthz, on HOST=0.0.0.0 too', async () => {
  const db = await createTestDatabase('sqlite');
  closers.push(() => db.drop());
  const server = await startServer({ databaseUrl: db.url, env: { TIDINGS_WORKER: 'false' } });
  closers.push(async () => {
    await server.stop();
  });
  for (const host of ['127.0.0.1', '0.0.0.0']) {
    const r = await runCli(['healthcheck'], { PORT: String(server.port), HOST: host });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), `http://127.0.0.1:${server.port}/healthz: ok`);
  }
});

test('exits 1 with the reason when nothing listens, on an error status, and on no answer in time', async () => {
  const closed = await freePort();
  const refused = await runCli(['healthcheck'], { PORT: String(closed) });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /healthz: unreachable \(.*ECONNREFUSED/);

  const failing = await listen((_req, res) => res.writeHead(503).end('{"status":"unavailable"}'));
  const unhealthy = await runCli(['healthcheck'], { PORT: String(failing) });
  assert.equal(unhealthy.code, 1);
  assert.match(unhealthy.stderr, /healthz: answered 503/);

  // Accepts the connection and never answers: the timeout ends it, well before the runner's.
  const silent = await listen(() => undefined);
  const started = Date.now();
  const slow = await runCli(['healthcheck', '--timeout-ms', '300'], { PORT: String(silent) });
  assert.equal(slow.code, 1);
  assert.match(slow.stderr, /no answer within 300 ms/);
  assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
});

test('refuses a timeout out of range as wrong usage', async () => {
  for (const value of ['0', '60001', 'soon']) {
    const r = await runCli(['healthcheck', '--timeout-ms', value], {});
    assert.equal(r.code, 2, `${value}: ${r.stderr}`);
  }
});

test('an all-interfaces HOST is reached on loopback; an address as itself', () => {
  assert.equal(localOrigin({ host: '0.0.0.0', port: 80 }), 'http://127.0.0.1:80');
  assert.equal(localOrigin({ host: '::', port: 80 }), 'http://[::1]:80');
  assert.equal(localOrigin({ host: '10.0.0.5', port: 81 }), 'http://10.0.0.5:81');
  assert.equal(localOrigin({ host: '::1', port: 82 }), 'http://[::1]:82');
});

test('a closed socket mid-answer is a failure, not a hang', async () => {
  const rude = net.createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => rude.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => rude.close(() => resolve())));
  const address = rude.address();
  assert.ok(address !== null && typeof address === 'object');
  const r = await runCli(['healthcheck'], { PORT: String(address.port) });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /healthz: unreachable/);
});
