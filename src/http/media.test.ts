/**
 * The media proxy end to end (issue 34 point 7): signed links made by the instance, `GET /media/…` through
 * the whole server, images from loopback servers. 127.0.0.2 plays the public internet (the test policy
 * allows it); 127.0.0.1 is a private address the policy refuses. On both engines: the key lives in the
 * database, the same for every instance.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { MediaProxy, type MediaProxyOptions } from '../fetch/media.js';
import { MediaSigner, mediaProxyKey } from '../fetch/mediaKey.js';
import { openStore } from '../store/db.js';
import { FeedServer } from '../test/feedServer.js';
import { describeEachEngine, silentLogger } from '../test/harness.js';
import { buildServer } from './server.js';

/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const BASE = 'https://tidings.example';
const PUBLIC = '127.0.0.2';
const onlyPublic: MediaProxyOptions['policy'] = { allowPrivate: false, isAllowed: (a) => a === PUBLIC };
/** The most of an image these tests' proxies read (the real limit, 5 MiB, would only make them slower). */
const MAX_BYTES = 64 * 1024;

await describeEachEngine('media proxy', (ctx) => {
  let images: FeedServer;
  let privateServer: FeedServer;
  let app: FastifyInstance;
  let proxy: MediaProxy;
  const opened: FastifyInstance[] = [];

  /** The whole server with a proxy of its own (its policy, its limits). */
  function server(mediaProxy: MediaProxy, store = ctx.store()): FastifyInstance {
    const instance = buildServer({
      config: { trustProxy: false, queueLimit: 10, baseUrl: BASE },
      store,
      logger: silentLogger,
      mediaProxy,
    });
    opened.push(instance);
    return instance;
  }

  /** The path of an image's proxied link, signed as the renderings sign it. */
  async function linkTo(url: string): Promise<string> {
    const media = await new MediaSigner(ctx.store().db, () => ({ baseUrl: BASE, proxy: true })).links();
    const link = media.image(url);
    assert.ok(link !== null && link.startsWith(`${BASE}/media/`), String(link));
    return link.slice(BASE.length);
  }

  const get = (instance: FastifyInstance, url: string, headers: Record<string, string> = {}) =>
    instance.inject({ method: 'GET', url, headers });

  function assertRefused(res: LightMyRequestResponse, status: number, code: number, message?: RegExp): void {
    assert.equal(res.statusCode, status, res.body);
    const body = res.json<{ code: number; message: string }>();
    assert.equal(body.code, code);
    if (message !== undefined) assert.match(body.message, message);
    assert.equal(res.headers['cache-control'], 'no-store');
  }

  before(async () => {
    images = await FeedServer.start(PUBLIC);
    privateServer = await FeedServer.start('127.0.0.1');
    privateServer.route('/secret.png', (_req, res) =>
      res.writeHead(200, { 'content-type': 'image/png' }).end(PNG),
    );
    proxy = new MediaProxy({ policy: onlyPublic, limits: { maxBytes: MAX_BYTES } });
    app = server(proxy);
  });
  after(async () => {
    for (const instance of opened) await instance.close();
    await images.close();
    await privateServer.close();
  });

  test('an image is served with its sniffed type and safe headers, then from memory', async () => {
    const url = images.route('/tide.png', (_req, res) => {
      // Declared loosely, as servers do: the bytes decide the type served.
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'set-cookie': 'tracker=1' }).end(PNG);
    });
    const path = await linkTo(url);
    const res = await get(app, path, { cookie: 'tidings_session=abc', referer: 'https://mail.example/' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.rawPayload, PNG);
    assert.equal(res.headers['content-type'], 'image/png');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.match(String(res.headers['content-security-policy']), /^default-src 'none';.*sandbox/);
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
    assert.equal(res.headers['cache-control'], 'public, max-age=86400');
    assert.equal(res.headers['set-cookie'], undefined, 'no cookie, ours or the image server’s');
    const [sent] = images.requestsFor('/tide.png');
    assert.ok(sent !== undefined);
    assert.equal(sent.headers.cookie, undefined, 'the reader’s cookies stay home');
    assert.equal(sent.headers.referer, undefined, 'no Referer goes to the image’s server');
    assert.match(String(sent.headers['user-agent']), /media proxy/);
    assert.match(String(sent.headers.accept), /^image\//);
    // Many readers, one fetch: from memory, and a browser that has it gets a 304 without a fetch.
    for (let i = 0; i < 3; i++) assert.equal((await get(app, path)).statusCode, 200);
    const etag = String(res.headers.etag);
    assert.equal((await get(app, path, { 'if-none-match': etag })).statusCode, 304);
    assert.equal(images.requestsFor('/tide.png').length, 1);
  });

  test('requests for one image that arrive together share one fetch', async () => {
    const url = images.route('/together.png', (_req, res) => {
      setTimeout(() => res.writeHead(200, { 'content-type': 'image/png' }).end(PNG), 50);
    });
    const path = await linkTo(url);
    const answers = await Promise.all(Array.from({ length: 5 }, () => get(app, path)));
    assert.deepEqual(
      answers.map((r) => r.statusCode),
      [200, 200, 200, 200, 200],
    );
    assert.equal(images.requestsFor('/together.png').length, 1);
  });

  test('a tampered link is the 404 of no image, and nothing is fetched', async () => {
    const url = images.route('/signed.png', (_req, res) =>
      res.writeHead(200, { 'content-type': 'image/png' }).end(PNG),
    );
    const path = await linkTo(url);
    const [, , signature = '', encoded = ''] = path.split('/');
    const other = Buffer.from(images.url('/other.png')).toString('base64url');
    const flipped = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    for (const bad of [
      `/media/${signature}/${other}`,
      `/media/${flipped}/${encoded}`,
      `/media/${signature}`,
      `/media/${signature}/${encoded}/more`,
      `/media/x/${encoded}`,
    ]) {
      assertRefused(await get(app, bad), 404, 40401);
    }
    const refused = await get(app, `/media/${flipped}/${encoded}`);
    assert.equal(refused.headers['x-content-type-options'], 'nosniff');
    assert.match(String(refused.headers['content-security-policy']), /sandbox/);
    assert.equal(images.requestsFor('/signed.png').length, 0);
    assert.equal(images.requestsFor('/other.png').length, 0);
  });

  test('what is not a raster image is refused: HTML, SVG, bytes that are no picture', async () => {
    const cases: [string, string, string | Buffer][] = [
      ['/page.png', 'text/html; charset=utf-8', '<!doctype html><script>alert(1)</script>'],
      [
        '/drawing.svg',
        'image/svg+xml',
        '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
      ],
      ['/lying.png', 'image/png', '<!doctype html><p>not a png</p>'],
      ['/empty.png', 'image/png', ''],
      ['/html-as-png-bytes.gif', 'text/html', PNG],
    ];
    for (const [path, type, body] of cases) {
      const url = images.route(path, (_req, res) => res.writeHead(200, { 'content-type': type }).end(body));
      assertRefused(await get(app, await linkTo(url)), 502, 50201, /no image|not a JPEG|SVG/);
    }
  });

  test('an image over the size limit is cut off and refused, with or without Content-Length', async () => {
    const big = Buffer.concat([PNG, Buffer.alloc(MAX_BYTES)]);
    const declared = images.route('/big-declared.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': big.length }).end(big);
    });
    const streamed = images.route('/big-streamed.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      // Written in pieces, without a length: the proxy stops reading at the limit.
      for (let i = 0; i < big.length; i += 8192) res.write(big.subarray(i, i + 8192));
      res.end();
    });
    for (const url of [declared, streamed]) {
      assertRefused(await get(app, await linkTo(url)), 502, 50201, /larger than 65536 bytes/);
    }
  });

  test('a server that does not finish within the time limit is answered 504', async () => {
    const held: ServerResponse[] = [];
    const url = images.route('/slow.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(PNG.subarray(0, 10)); // then nothing until the test is over
      held.push(res);
    });
    // An injected limit: the rule (the time limit ends the fetch), not a measure of this machine's speed.
    const hurried = server(new MediaProxy({ policy: onlyPublic, limits: { timeoutMs: 300 } }));
    assertRefused(await get(hurried, await linkTo(url)), 504, 50401, /took longer than 0\.3 s/);
    for (const res of held) res.end();
  });

  test('a private address is refused unless private networks are allowed', async () => {
    const path = await linkTo(privateServer.url('/secret.png'));
    assertRefused(await get(app, path), 403, 40301, /private networks|loopback/i);
    assert.equal(privateServer.requestsFor('/secret.png').length, 0, 'nothing reached the private server');
    const allowing = server(new MediaProxy({ policy: { allowPrivate: true } }));
    const res = await get(allowing, path);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.rawPayload, PNG);
  });

  test('a redirect to a private address is refused; nothing reaches it', async () => {
    const before = privateServer.requestsFor('/secret.png').length;
    const url = images.route('/moved.png', (_req, res) => {
      res.writeHead(302, { location: privateServer.url('/secret.png') }).end();
    });
    assertRefused(await get(app, await linkTo(url)), 403, 40301);
    assert.equal(privateServer.requestsFor('/secret.png').length, before);
  });

  test('at most two fetches at once from one host; past the waiting bound, 503 with Retry-After', async () => {
    let now = 0;
    let most = 0;
    for (let i = 0; i < 6; i++) {
      images.route(`/many-${i}.png`, (_req, res) => {
        most = Math.max(most, ++now);
        setTimeout(() => {
          now--;
          res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
        }, 20);
      });
    }
    const paths = await Promise.all(
      Array.from({ length: 6 }, (_, i) => linkTo(images.url(`/many-${i}.png`))),
    );
    const answers = await Promise.all(paths.map((p) => get(app, p)));
    assert.deepEqual(new Set(answers.map((r) => r.statusCode)), new Set([200]));
    assert.ok(most <= 2, `${most} at once from one host`);

    const held: ServerResponse[] = [];
    let arrived = (): void => undefined;
    const fetching = new Promise<void>((resolve) => (arrived = resolve));
    const hang = images.route('/hang.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      held.push(res);
      arrived();
    });
    const narrow = server(new MediaProxy({ policy: onlyPublic, limits: { pending: 1 } }));
    const first = get(narrow, await linkTo(hang));
    await fetching;
    const busy = await get(narrow, await linkTo(images.url('/many-0.png')));
    assertRefused(busy, 503, 50301, /too many images/);
    assert.equal(busy.headers['retry-after'], '5');
    for (const res of held) res.end(PNG);
    assert.equal((await first).statusCode, 200);
  });

  test('the key is kept in the database: another instance (or a restart) verifies the same links', async () => {
    const url = images.route('/shared.png', (_req, res) =>
      res.writeHead(200, { 'content-type': 'image/png' }).end(PNG),
    );
    const path = await linkTo(url);
    const other = openStore(ctx.url());
    try {
      assert.deepEqual(await mediaProxyKey(other.db), await mediaProxyKey(ctx.store().db));
      const second = server(new MediaProxy({ policy: onlyPublic }), other);
      const res = await get(second, path);
      assert.equal(res.statusCode, 200, res.body);
      await second.close();
    } finally {
      await other.close();
    }
  });
});
