import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import {
  FETCH_TEST_HOST,
  fetchOutcome as outcome,
  fetchTestOptions as options,
  useFeedServer,
} from '../test/feedFixtures.js';
import { closedPort, startSilentServer } from '../test/feedServer.js';
import { DEFAULT_USER_AGENT, fetchUrl } from './fetch.js';

const FEED = '<?xml version="1.0"?><rss version="2.0"><channel><title>Tidings test</title></channel></rss>';

const server = useFeedServer(FETCH_TEST_HOST);

describe('answers', () => {
  test('a 200 gives the body and its headers; the request names Tidings and takes any type', async () => {
    const url = server().route('/feed.xml', (_req, res) => {
      res.writeHead(200, {
        'content-type': 'application/rss+xml; charset=utf-8',
        'cache-control': 'public, max-age=3600',
        expires: 'Wed, 21 Oct 2037 07:28:00 GMT',
      });
      res.end(FEED);
    });
    const result = await fetchUrl(url, options);
    assert.ok(result.kind === 'ok', outcome(result));
    assert.equal(result.status, 200);
    assert.equal(result.body.toString(), FEED);
    assert.equal(result.contentType, 'application/rss+xml; charset=utf-8');
    assert.equal(result.finalUrl, url);
    assert.equal(result.permanentUrl, null);
    assert.equal(result.cacheControlMaxAge, 3600);
    assert.deepEqual(result.expires, new Date(Date.UTC(2037, 9, 21, 7, 28, 0)));
    assert.equal(result.etag, null);

    const [received] = server().requestsFor('/feed.xml');
    assert.ok(received);
    assert.equal(received.headers['user-agent'], DEFAULT_USER_AGENT);
    assert.equal(received.headers.accept, '*/*');
    assert.equal(received.headers['accept-encoding'], 'gzip, deflate, br');
    assert.equal(received.headers['if-none-match'], undefined);
  });

  test("the caller's Accept and User-Agent are sent, and its noun words the messages", async () => {
    const url = server().route('/page.html', (_req, res) => res.end('x'.repeat(2000)));
    const accept = 'text/html, application/xhtml+xml;q=0.9';
    const result = await fetchUrl(url, {
      ...options,
      accept,
      userAgent: 'Test/1',
      noun: 'page',
      maxBytes: 1000,
    });
    assert.ok(result.kind === 'error', outcome(result));
    assert.equal(result.message, 'the page is larger than 1000 bytes, the most Tidings reads');
    const [received] = server().requestsFor('/page.html');
    assert.ok(received);
    assert.equal(received.headers.accept, accept);
    assert.equal(received.headers['user-agent'], 'Test/1');
  });

  test('ETag and Last-Modified round-trip: the next fetch is conditional and gets not_modified', async () => {
    const lastModified = 'Tue, 15 Nov 1994 12:45:26 GMT';
    const url = server().route('/conditional.xml', (req, res) => {
      if (req.headers['if-none-match'] === '"v1"') {
        res.writeHead(304, { etag: '"v1"', 'cache-control': 'max-age=60' }).end();
        return;
      }
      res.writeHead(200, { etag: '"v1"', 'last-modified': lastModified }).end(FEED);
    });
    const first = await fetchUrl(url, options);
    assert.ok(first.kind === 'ok', outcome(first));
    assert.equal(first.etag, '"v1"');
    assert.equal(first.lastModified, lastModified);

    const second = await fetchUrl(url, { ...options, etag: first.etag, lastModified: first.lastModified });
    assert.ok(second.kind === 'not_modified', outcome(second));
    assert.equal(second.etag, '"v1"');
    assert.equal(second.cacheControlMaxAge, 60);
    const conditional = server().requestsFor('/conditional.xml')[1];
    assert.ok(conditional);
    assert.equal(conditional.headers['if-none-match'], '"v1"');
    assert.equal(conditional.headers['if-modified-since'], lastModified);
  });

  test('gzip, deflate and br bodies are decompressed', async () => {
    const encoded = { gzip: gzipSync(FEED), deflate: deflateSync(FEED), br: brotliCompressSync(FEED) };
    for (const [encoding, body] of Object.entries(encoded)) {
      const url = server().route(`/${encoding}.xml`, (_req, res) => {
        res.writeHead(200, { 'content-encoding': encoding }).end(body);
      });
      const result = await fetchUrl(url, options);
      assert.ok(result.kind === 'ok', `${encoding}: ${outcome(result)}`);
      assert.equal(result.body.toString(), FEED, encoding);
    }
  });

  test('a body corrupt for its encoding, or in an unknown one, is a decompression error', async () => {
    const corrupt = server().route('/corrupt.xml', (_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' }).end('this is not gzip');
    });
    const unknown = server().route('/zstd.xml', (_req, res) => {
      res.writeHead(200, { 'content-encoding': 'zstd' }).end('whatever');
    });
    const corruptResult = await fetchUrl(corrupt, options);
    assert.equal(outcome(corruptResult), 'decompression');
    const unknownResult = await fetchUrl(unknown, options);
    assert.ok(unknownResult.kind === 'error');
    assert.equal(unknownResult.code, 'decompression');
    assert.match(unknownResult.message, /zstd/);
  });

  test('410 means gone', async () => {
    const url = server().route('/gone.xml', (_req, res) => res.writeHead(410).end('removed'));
    const result = await fetchUrl(url, options);
    assert.ok(result.kind === 'gone', outcome(result));
    assert.match(result.message, /gone for good/);
  });

  test('429 and 503 carry Retry-After, in seconds or as an HTTP date', async () => {
    const seconds = server().route('/busy.xml', (_req, res) =>
      res.writeHead(429, { 'retry-after': '120' }).end(),
    );
    const inTwoMinutes = new Date(Date.now() + 120_000).toUTCString();
    const dated = server().route('/down.xml', (_req, res) => {
      res.writeHead(503, { 'retry-after': inTwoMinutes }).end();
    });
    const busy = await fetchUrl(seconds, options);
    assert.deepEqual(busy.kind === 'error' && [busy.code, busy.status, busy.retryAfter], [
      'http_status',
      429,
      120,
    ]);
    const down = await fetchUrl(dated, options);
    assert.ok(down.kind === 'error' && down.status === 503, outcome(down));
    assert.ok(
      down.retryAfter !== undefined && down.retryAfter > 110 && down.retryAfter <= 120,
      `${down.retryAfter}`,
    );
  });

  test('other error statuses are http_status errors with the status, and no retryAfter', async () => {
    const url = server().route('/broken.xml', (_req, res) =>
      res.writeHead(500, { 'retry-after': '5' }).end(),
    );
    const result = await fetchUrl(url, options);
    assert.ok(result.kind === 'error', outcome(result));
    assert.deepEqual([result.code, result.status, result.retryAfter], ['http_status', 500, undefined]);
    assert.match(result.message, /answered 500 Internal Server Error/);
  });
});

describe('limits', () => {
  test('a body over maxBytes is too_large, whether or not its length is declared', async () => {
    const declared = server().route('/big-declared.xml', (_req, res) => res.end('x'.repeat(5000)));
    const chunked = server().route('/big-chunked.xml', (_req, res) => {
      for (let i = 0; i < 5; i++) res.write('x'.repeat(1000));
      res.end();
    });
    const exact = server().route('/exact.xml', (_req, res) => res.end('x'.repeat(1000)));
    assert.equal(outcome(await fetchUrl(declared, { ...options, maxBytes: 1000 })), 'too_large');
    assert.equal(outcome(await fetchUrl(chunked, { ...options, maxBytes: 1000 })), 'too_large');
    assert.equal(outcome(await fetchUrl(exact, { ...options, maxBytes: 1000 })), 'ok');
  });

  test('a gzip bomb stops at the limit, quickly, without inflating the rest', async () => {
    // Concatenated gzip members decode as one stream: 80 × 10 MiB of zeros is 800 MiB decoded from ~800 KiB
    // sent, under maxBytes, so only the count of decoded bytes can stop it.
    const member = gzipSync(Buffer.alloc(10 * 1024 * 1024));
    const bomb = Buffer.concat(Array<Buffer>(80).fill(member));
    assert.ok(bomb.length < 1024 * 1024);
    const url = server().route('/bomb.xml', (_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' }).end(bomb);
    });
    const heapBefore = process.memoryUsage().arrayBuffers;
    const started = performance.now();
    const result = await fetchUrl(url, { ...options, maxBytes: 1024 * 1024 });
    const elapsed = performance.now() - started;
    assert.equal(outcome(result), 'too_large');
    assert.ok(elapsed < 1000, `took ${Math.round(elapsed)} ms`);
    const grownMiB = (process.memoryUsage().arrayBuffers - heapBefore) / 1024 / 1024;
    assert.ok(grownMiB < 64, `buffers grew by ${Math.round(grownMiB)} MiB`);
  });

  test('a slow body, a never-ending one and a missing answer end at the whole-request deadline', async () => {
    // A 100-byte body at a byte every 100 ms would take 10 s.
    const slow = server().route('/slow.xml', (_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      const timer = setInterval(() => res.write('<'), 100);
      res.on('close', () => clearInterval(timer));
    });
    // Chunked and never finished: 1 KiB every 10 ms, well under maxBytes by the deadline.
    const endless = server().route('/endless.xml', (_req, res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write('<item/>'.repeat(150)), 10);
      res.on('close', () => clearInterval(timer));
    });
    const silent = server().route('/no-answer.xml', () => undefined);
    for (const url of [slow, endless, silent]) {
      const started = performance.now();
      const result = await fetchUrl(url, { ...options, requestTimeoutMs: 500 });
      const elapsed = performance.now() - started;
      assert.ok(result.kind === 'error' && result.code === 'timeout', `${url}: ${outcome(result)}`);
      assert.match(result.message, /took longer than 500 ms/);
      assert.ok(elapsed >= 450 && elapsed < 1500, `${url} took ${Math.round(elapsed)} ms`);
    }
  });
  test("the caller's signal ends a fetch at once, as aborted, and an aborted one is never sent", async () => {
    const url = server().route('/waits.xml', () => undefined);
    const controller = new AbortController();
    setTimeout(() => {
      controller.abort();
    }, 100);
    const started = performance.now();
    const result = await fetchUrl(url, { ...options, signal: controller.signal });
    const elapsed = performance.now() - started;
    assert.deepEqual(result, {
      kind: 'error',
      code: 'aborted',
      message: `the fetch from ${new URL(url).host} was cancelled`,
    });
    assert.ok(elapsed >= 90 && elapsed < 1000, `took ${Math.round(elapsed)} ms`);
    const before = server().requests.length;
    assert.equal(outcome(await fetchUrl(url, { ...options, signal: controller.signal })), 'aborted');
    assert.equal(server().requests.length, before);
  });
});

describe('connections', () => {
  test('a connection that hangs in its handshake ends at the connect timeout', async () => {
    const silent = await startSilentServer('127.0.0.2');
    try {
      const started = performance.now();
      const result = await fetchUrl(`https://${silent.origin}/feed.xml`, {
        ...options,
        connectTimeoutMs: 300,
        requestTimeoutMs: 5000,
      });
      const elapsed = performance.now() - started;
      assert.ok(result.kind === 'error' && result.code === 'timeout', outcome(result));
      assert.match(result.message, /could not connect to .* within 300 ms/);
      // undici's connect timer ticks about every half second, so 300 ms ends within about a second.
      assert.ok(elapsed < 2000, `took ${Math.round(elapsed)} ms`);
    } finally {
      await silent.close();
    }
  });

  test('a refused connection is a connection error', async () => {
    const port = await closedPort('127.0.0.2');
    const result = await fetchUrl(`http://127.0.0.2:${port}/feed.xml`, options);
    assert.ok(result.kind === 'error' && result.code === 'connection', outcome(result));
    assert.match(result.message, /refused the connection/);
  });

  test('https to a server that does not speak TLS is a tls error, in readable words', async () => {
    const result = await fetchUrl(server().url('/feed.xml').replace('http:', 'https:'), options);
    assert.ok(result.kind === 'error' && result.code === 'tls', outcome(result));
    assert.match(result.message, /failed: wrong version number$/);
  });

  test('a connection cut mid-body, or an answer that is not HTTP, is a connection error', async () => {
    const cut = server().route('/cut.xml', (req, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('<rss>');
      setTimeout(() => req.socket.destroy(), 20);
    });
    const garbage = server().route('/garbage.xml', (req) => req.socket.end('SSH-2.0-OpenSSH_9.6\r\n\r\n'));
    const cutResult = await fetchUrl(cut, options);
    assert.ok(cutResult.kind === 'error' && cutResult.code === 'connection', outcome(cutResult));
    assert.match(cutResult.message, /closed the connection before the response was complete/);
    const garbageResult = await fetchUrl(garbage, options);
    assert.ok(garbageResult.kind === 'error' && garbageResult.code === 'connection', outcome(garbageResult));
    assert.match(garbageResult.message, /did not answer in valid HTTP/);
  });

  test('what is not an http(s) URL without credentials is bad_url, and nothing is requested', async () => {
    const before = server().requests.length;
    for (const url of ['not a url', '/relative/feed.xml', 'ftp://127.0.0.2/feed.xml', 'file:///etc/passwd']) {
      assert.equal(outcome(await fetchUrl(url, options)), 'bad_url', url);
    }
    const withPassword = server().url('/feed.xml').replace('http://', 'http://user:secret@');
    assert.equal(outcome(await fetchUrl(withPassword, options)), 'bad_url');
    assert.equal(server().requests.length, before);
  });
});
