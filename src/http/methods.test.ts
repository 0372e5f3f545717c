/**
 * Every method on the API's paths over raw TCP (fetch cannot send CONNECT): what Node handles itself
 * (CONNECT, upgrades) and what Fastify reads a body for first (QUERY, PUT…) still get the JSON 405.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { codes } from '../test/apiClient.js';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';

interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: string;
  /** Whether the server closed the connection after the response. */
  closed: boolean;
}

/** Writes `text` on a new connection and reads one response (framed by Content-Length). */
function raw(port: number, text: string | Buffer): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let buf = Buffer.alloc(0);
    let parsed: Omit<RawResponse, 'closed'> | undefined;
    const timer = setTimeout(() => {
      socket.destroy();
      if (parsed === undefined) reject(new Error(`no response; got ${JSON.stringify(buf.toString())}`));
      else resolve({ ...parsed, closed: false });
    }, 1000);
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const sep = buf.indexOf('\r\n\r\n');
      if (sep === -1 || parsed !== undefined) return;
      const [statusLine = '', ...lines] = buf.subarray(0, sep).toString('latin1').split('\r\n');
      const headers = new Map(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      const length = Number(headers.get('content-length') ?? 0);
      if (buf.length < sep + 4 + length) return;
      const body = buf.subarray(sep + 4, sep + 4 + length).toString('utf8');
      parsed = { status: Number(statusLine.split(' ')[1]), headers, body };
    });
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      if (parsed === undefined) reject(new Error(`closed with ${JSON.stringify(buf.toString())}`));
      else resolve({ ...parsed, closed: true });
    });
  });
}

/** Asks the server to close the connection after its answer, which ends `raw` at once. */
const CLOSE = 'Connection: close\r\n';

function assert405(res: RawResponse, what: string): void {
  assert.equal(res.status, 405, `${what}: ${res.body}`);
  assert.equal(res.headers.get('allow'), 'GET, HEAD, POST, OPTIONS', what);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, what);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(body).sort(), ['code', 'message'], what);
  assert.equal(body.code, codes.method_not_allowed, what);
}

await describeEachEngine('every HTTP method on the API paths', (ctx) => {
  let app: FastifyInstance;
  let port: number;
  let key: string;
  before(async () => {
    app = testServer(ctx.store());
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as net.AddressInfo).port;
    key = (await newAccount(ctx.store())).apiKey;
  });
  after(() => app.close());

  test('CONNECT gets the JSON 405, and the connection is closed after it', async () => {
    for (const path of ['/api/v1/articles', `/api?api_key=${key}`, '/api/v1/articles/']) {
      const res = await raw(port, `CONNECT ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      assert405(res, `CONNECT ${path}`);
      assert.equal(res.headers.get('connection'), 'close');
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.ok(res.closed, 'the server closes the connection');
    }
    // A proxy's CONNECT host:port names no path of ours: the JSON 404.
    const proxy = await raw(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    assert.equal(proxy.status, 404, proxy.body);
    assert.equal((JSON.parse(proxy.body) as { code: number }).code, codes.not_found);
    const after = await raw(port, `GET /api/v1/articles?apiKey=${key} HTTP/1.1\r\nHost: x\r\n${CLOSE}\r\n`);
    assert.equal(after.status, 200, 'the server goes on');
  });

  test('every other method Node parses gets the JSON 405, whatever body it carries', async () => {
    const others = http.METHODS.filter((m) => !['GET', 'HEAD', 'POST', 'OPTIONS'].includes(m));
    assert.ok(others.includes('TRACE') && others.includes('QUERY') && others.includes('CONNECT'));
    for (const method of others) {
      for (const path of [`/api/v1/articles?apiKey=${key}`, '/api']) {
        assert405(
          await raw(port, `${method} ${path} HTTP/1.1\r\nHost: x\r\n${CLOSE}\r\n`),
          `${method} ${path}`,
        );
      }
    }
    const bodies: [string, string][] = [
      ['QUERY', 'Content-Length: 2\r\n\r\n{}'], // Fastify wants a Content-Type with QUERY
      ['PUT', `Content-Type: text/plain\r\nContent-Length: 70000\r\n\r\n${'x'.repeat(70_000)}`],
      ['DELETE', 'Content-Type: application/json\r\nContent-Length: 4\r\n\r\n{bad'],
      ['PATCH', 'Content-Type: not a type\r\nContent-Length: 1\r\n\r\nx'],
    ];
    for (const [method, rest] of bodies) {
      assert405(await raw(port, `${method} /api/v1/articles HTTP/1.1\r\nHost: x\r\n${CLOSE}${rest}`), method);
    }
  });

  test('an Upgrade request is served like any other: its method decides', async () => {
    const upgrade = 'Connection: Upgrade, close\r\nUpgrade: websocket\r\n';
    const get = await raw(port, `GET /api/v1/articles?apiKey=${key} HTTP/1.1\r\nHost: x\r\n${upgrade}\r\n`);
    assert.equal(get.status, 200, get.body);
    assert.deepEqual(JSON.parse(get.body), []);
    assert405(await raw(port, `DELETE /api HTTP/1.1\r\nHost: x\r\n${upgrade}\r\n`), 'DELETE with Upgrade');
    const h2c = await raw(port, `CONNECT /api HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\n\r\n`);
    assert405(h2c, 'CONNECT with Upgrade');
  });
});
