import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import type { Store } from '../../store/db.js';
import type { FeedRow } from '../../store/feeds.js';
import {
  feedRow,
  hoursAgo,
  makeDue,
  queueRows,
  queueUrls,
  rssDocument,
  serveFeed,
  testRefreshDeps,
  waitFor,
} from '../../test/feedFixtures.js';
import { FeedServer } from '../../test/feedServer.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import type { Worker } from '../../lib/workers.js';
import { startPoller } from '../poller.js';
import { subscribe } from '../subscribe/subscribe.js';

/**
 * Feeds that try to hurt the worker: slow, endless, huge, compressed bombs, broken or booby-trapped XML,
 * lying charsets, and a redirect into this machine. Each runs through a started poller, which must record
 * what happened on the feed and go on refreshing a healthy feed afterwards.
 */

const MAX_BYTES = 64 * 1024;
/** Short, but with room for a loaded two-core machine: the fixture server shares this process's event loop. */
const TIMEOUT_MS = 3000;

/** Writes `chunk` again and again, as fast as the client reads, until the connection closes. */
function writeForever(res: ServerResponse, chunk: Buffer | string): void {
  let open = true;
  res.on('close', () => {
    open = false;
  });
  const pump = (): void => {
    while (open && res.write(chunk));
    if (open) res.once('drain', pump);
  };
  pump();
}

/** Writes one byte every 100 ms until the connection closes. */
function trickle(res: ServerResponse): void {
  const timer = setInterval(() => res.write(' '), 100);
  res.on('close', () => clearInterval(timer));
}

const RSS_HEAD = '<?xml version="1.0"?><rss version="2.0"><channel><title>';
const itemXml = (title: string, link: string): string =>
  `<item><title>${title}</title><link>${link}</link><pubDate>${hoursAgo(1).toUTCString()}</pubDate></item>`;

await describeEachEngine('hostile feeds', (ctx) => {
  let server: FeedServer;
  /** On 127.0.0.1, which the policy refuses: it must never be asked anything. */
  let forbidden: FeedServer;
  let dir: string;
  let secret: string;
  let poller: Worker | undefined;
  const logged: { level: number; msg: string }[] = [];
  const feeds = new Map<string, number>();
  /** Routes whose publisher has since fixed the feed: they serve a plain, valid one. */
  const fixed = new Set<string>();
  let account: { id: number };
  let healthy: ReturnType<typeof serveFeed>;

  const deps = (store: Store) => ({
    ...testRefreshDeps(store, {
      // 127.0.0.2 plays the public internet; every other address, 127.0.0.1 included, stays refused.
      policy: { allowPrivate: false, isAllowed: (address: string) => address === '127.0.0.2' },
      maxBytes: MAX_BYTES,
      requestTimeoutMs: TIMEOUT_MS,
    }),
    log: pino(
      { level: 'warn' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          logged.push(JSON.parse(chunk.toString()) as { level: number; msg: string });
          done();
        },
      }),
    ),
  });
  const row = (name: string): Promise<FeedRow> => feedRow(ctx.store(), feeds.get(name) ?? -1);

  before(async () => {
    server = await FeedServer.start('127.0.0.2');
    forbidden = await FeedServer.start('127.0.0.1');
    dir = await mkdtemp(join(tmpdir(), 'tidings-hostile-'));
    secret = `TIDINGS-SECRET-${randomBytes(8).toString('hex')}`;
    const secretFile = join(dir, 'secret.txt');
    await writeFile(secretFile, secret);
    forbidden.route('/feed.xml', (_req, res) => {
      res
        .writeHead(200)
        .end(
          rssDocument(secret, [
            { link: `https://x.example/${secret}`, title: secret, published: new Date() },
          ]),
        );
    });

    // 16 MiB of zeros in 16 KiB. Made now: compressing it inside a handler would stall this process's fetches.
    const bomb = gzipSync(Buffer.alloc(16 * 1024 * 1024));
    const routes: Record<string, (res: ServerResponse) => void> = {
      slow: (res) => {
        res.writeHead(200, { 'content-type': 'application/rss+xml' });
        res.write(`${RSS_HEAD}Slow`);
        trickle(res);
      },
      'no-answer': () => undefined,
      endless: (res) => {
        res.writeHead(200, { 'content-type': 'application/rss+xml' });
        res.write(`${RSS_HEAD}Endless</title>`);
        writeForever(res, itemXml('again', 'https://x.example/again').repeat(100));
      },
      'oversized-declared': (res) => {
        const body = Buffer.alloc(MAX_BYTES * 4, ' ');
        res.writeHead(200, { 'content-length': body.length }).end(body);
      },
      'oversized-chunked': (res) => {
        res.writeHead(200, { 'content-type': 'application/rss+xml' });
        res.end(
          `${RSS_HEAD}Big</title>${itemXml('big', 'https://x.example/big').repeat(3000)}</channel></rss>`,
        );
      },
      'gzip-bomb': (res) => {
        res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'application/rss+xml' });
        res.end(bomb);
      },
      'cut-off': (res) => {
        res.writeHead(200, { 'content-length': 10_000 });
        res.write(`${RSS_HEAD}Cut off`);
        setTimeout(() => res.socket?.destroy(), 20);
      },
      malformed: (res) => {
        res.writeHead(200, { 'content-type': 'application/rss+xml' });
        res.end(`${RSS_HEAD}Broken</title><item><title>Unclosed title</item></channel></rss>`);
      },
      'billion-laughs': (res) => {
        const entities = ['<!ENTITY lol "lol">'];
        for (let i = 1; i <= 9; i++)
          entities.push(`<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">`);
        res.writeHead(200, { 'content-type': 'application/rss+xml' });
        res.end(
          `<?xml version="1.0"?><!DOCTYPE rss [${entities.join('')}]><rss version="2.0"><channel>` +
            `<title>Laughs &lol9;</title><item><title>&lol9;</title><description>&lol9;</description></item></channel></rss>`,
        );
      },
      'external-entity': (res) => {
        res.writeHead(200, { 'content-type': 'application/rss+xml' });
        res.end(
          `<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY xxe SYSTEM "file://${secretFile}">]>` +
            `<rss version="2.0"><channel><title>&xxe;</title>${itemXml('&xxe;', 'https://x.example/xxe')}</channel></rss>`,
        );
      },
      html: (res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!doctype html><html><head><title>Blog</title></head><body><p>Hello</p></body></html>');
      },
      'unknown-charset-http': (res) => {
        res.writeHead(200, { 'content-type': 'application/rss+xml; charset=x-klingon' });
        res.end(`${RSS_HEAD}Klingon</title>${itemXml('Qapla', 'https://x.example/klingon')}</channel></rss>`);
      },
      'unknown-charset-prolog': (res) => {
        res.writeHead(200, { 'content-type': 'application/rss+xml' });
        res.end(
          `<?xml version="1.0" encoding="x-klingon"?><rss version="2.0"><channel><title>Klingon</title>` +
            `${itemXml('Qapla', 'https://x.example/klingon-prolog')}</channel></rss>`,
        );
      },
      'utf16-declared-utf8-sent': (res) => {
        res.writeHead(200, { 'content-type': 'application/rss+xml; charset=utf-16' });
        res.end(`${RSS_HEAD}Wide</title>${itemXml('Wide', 'https://x.example/wide')}</channel></rss>`);
      },
      'utf8-declared-cp1252-sent': (res) => {
        res.writeHead(200, { 'content-type': 'application/rss+xml; charset=utf-8' });
        res.end(
          Buffer.concat([
            Buffer.from(`${RSS_HEAD}Caf`),
            Buffer.from([0xe9]),
            Buffer.from('</title><item><title>'),
            Buffer.from([0x93]),
            Buffer.from('Quoted'),
            Buffer.from([0x94]),
            Buffer.from(
              `</title><link>https://x.example/cp1252</link><pubDate>${hoursAgo(1).toUTCString()}</pubDate></item></channel></rss>`,
            ),
          ]),
        );
      },
      'latin1-declared-utf8-sent': (res) => {
        res.writeHead(200, { 'content-type': 'application/rss+xml; charset=iso-8859-1' });
        res.end(
          Buffer.from(
            `${RSS_HEAD}Café</title>${itemXml('“Quoted”', 'https://x.example/utf8')}</channel></rss>`,
            'utf8',
          ),
        );
      },
      'redirect-to-loopback': (res) => {
        res.writeHead(302, { location: forbidden.url('/feed.xml') }).end();
      },
      'redirect-loop': (res) => {
        res.writeHead(302, { location: '/redirect-loop' }).end();
      },
    };
    for (const [name, handler] of Object.entries(routes)) {
      server.route(`/${name}`, (_req, res) => {
        if (!fixed.has(name)) {
          handler(res);
          return;
        }
        res.writeHead(200, { 'content-type': 'application/rss+xml; charset=utf-8' });
        res.end(
          `${RSS_HEAD}Fixed</title>${itemXml('Fixed', `https://x.example/fixed-${name}`)}</channel></rss>`,
        );
      });
    }
    healthy = serveFeed(server, '/healthy.xml', {
      title: 'Healthy',
      items: [{ link: 'https://x.example/healthy-1', title: 'Healthy one', published: hoursAgo(2) }],
    });

    // As after an OPML import: known, not fetched yet, so the poller's first pass meets them all.
    account = await newAccount(ctx.store());
    for (const name of [...Object.keys(routes), 'healthy']) {
      const url = name === 'healthy' ? healthy.url : server.url(`/${name}`);
      const { feed } = await subscribe(deps(ctx.store()), account.id, { url, trusted: true });
      feeds.set(name, feed.id);
    }
    poller = startPoller(deps(ctx.store()), { maxSleepMs: 100, concurrency: 32, perHost: 32 });
    await waitFor('every feed to be fetched once', async () => {
      const fetched = await ctx
        .store()
        .db.selectFrom('feeds')
        .select('id')
        .where('last_fetched_at', 'is not', null)
        .execute();
      return fetched.length === feeds.size;
    });
  });

  after(async () => {
    const started = Date.now();
    await poller?.stop();
    assert.ok(Date.now() - started < 2000, 'the poller stops promptly');
    await forbidden.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  const errors: [name: string, error: RegExp][] = [
    ['slow', /^fetching from 127\.0\.0\.2:\d+ took longer than 3 s$/],
    ['no-answer', /^fetching from 127\.0\.0\.2:\d+ took longer than 3 s$/],
    ['endless', /^the feed is larger than 65536 bytes, the most Tidings reads$/],
    ['oversized-declared', /^the feed is larger than 65536 bytes/],
    ['oversized-chunked', /^the feed is larger than 65536 bytes/],
    ['gzip-bomb', /^the feed is larger than 65536 bytes/],
    ['cut-off', /closed the connection before the response was complete/],
    [
      'billion-laughs',
      /^The address answered, but not with a feed: refused: the feed declares XML entities that expand other entities \(billion laughs\)$/,
    ],
    [
      'external-entity',
      /^The address answered, but not with a feed: refused: the feed declares an external XML entity \(XXE\)$/,
    ],
    ['unknown-charset-http', /^The address answered, but not with a feed: unsupported charset "x-klingon"$/],
    [
      'unknown-charset-prolog',
      /^The address answered, but not with a feed: unsupported charset "x-klingon"$/,
    ],
    // Read as the server says, UTF-16 text has no "<" in it: the error that reading gives.
    ['utf16-declared-utf8-sent', /^The address answered, but not with a feed: no XML element found$/],
    ['html', /^The address answered, but not with a feed: HTML page$/],
    [
      'redirect-to-loopback',
      /^127\.0\.0\.1 is a loopback address \(this machine\); Tidings fetches only from public/,
    ],
    ['redirect-loop', /redirects more than 5 times/],
  ];
  for (const [name, error] of errors) {
    test(`${name}: a recorded error, retried later`, async () => {
      const f = await row(name);
      assert.match(f.last_error ?? '', error);
      assert.equal(f.error_count, 1);
      assert.equal(f.status, 'active');
      assert.equal(f.last_success_at, null);
      assert.equal(f.lease_owner, null);
      assert.ok(Date.parse(f.next_fetch_at) > Date.now() + 10 * 60_000, f.next_fetch_at);
      assert.ok(f.last_error !== null && f.last_error.length < 500);
    });
  }

  test('malformed: read leniently (an unclosed tag closed) and recorded as such, not as an error', async () => {
    const f = await row('malformed');
    assert.equal(f.last_error, null);
    assert.equal(f.read_leniently, 1);
    assert.equal(f.title, 'Broken');
    assert.equal(f.error_count, 0);
  });

  test('an HTML page is reported in plain words, without repeating itself', async () => {
    assert.equal((await row('html')).last_error, 'The address answered, but not with a feed: HTML page');
  });

  test('the redirect to 127.0.0.1 never reached it, and no local file was read into anything', async () => {
    assert.equal(forbidden.requests.length, 0);
    const db = ctx.store().db;
    const everything = JSON.stringify([
      await db.selectFrom('feeds').selectAll().execute(),
      await db.selectFrom('feed_items').selectAll().execute(),
      await db.selectFrom('queue_items').selectAll().execute(),
      logged,
    ]);
    assert.ok(!everything.includes(secret));
  });

  test('refused and unreadable documents stored nothing and queued nothing', async () => {
    const refused = ['billion-laughs', 'external-entity', 'unknown-charset-http', 'unknown-charset-prolog'];
    for (const name of [...refused, 'utf16-declared-utf8-sent']) {
      const f = await row(name);
      const items = await ctx
        .store()
        .db.selectFrom('feed_items')
        .select('id')
        .where('feed_id', '=', f.id)
        .execute();
      assert.deepEqual(items, [], name);
      assert.doesNotMatch(f.title, /Laughs|lol|Klingon|Wide/, name);
    }
    const urls = await queueUrls(ctx.store(), account.id);
    assert.ok(!urls.some((u) => /klingon|wide|xxe/.test(u)), urls.join(' '));
  });

  test('lying charsets are read, not refused: the declared charset wins and the text shows it', async () => {
    const cp1252 = await row('utf8-declared-cp1252-sent');
    assert.equal(cp1252.last_error, null);
    assert.equal(cp1252.title, 'Caf\ufffd');
    const latin1 = await row('latin1-declared-utf8-sent');
    assert.equal(latin1.last_error, null);
    assert.equal(latin1.title, 'CafÃ©');
    const titles = new Map((await queueRows(ctx.store(), account.id)).map((r) => [r.url, r.title]));
    assert.equal(titles.get('https://x.example/cp1252'), '\ufffdQuoted\ufffd');
    assert.equal(titles.get('https://x.example/utf8'), 'â€œQuotedâ€\ufffd');
  });

  test('nothing went wrong inside the worker: no unexpected failure was logged', () => {
    assert.deepEqual(
      logged.filter((l) => l.level >= 50),
      [],
    );
  });

  test('afterwards, the running poller still refreshes a healthy feed', async () => {
    assert.ok((await queueUrls(ctx.store(), account.id)).includes('https://x.example/healthy-1'));
    const before = healthy.requests().length;
    healthy.items.unshift({
      link: 'https://x.example/healthy-2',
      title: 'Healthy two',
      published: new Date(),
    });
    await makeDue(ctx.store(), feeds.get('healthy') ?? -1);
    await waitFor('the poller to queue the new item', async () =>
      (await queueUrls(ctx.store(), account.id)).includes('https://x.example/healthy-2'),
    );
    assert.equal(healthy.requests().length, before + 1);
    assert.equal((await row('healthy')).last_error, null);
    // The hostile feeds wait for their retry time: none was fetched twice.
    assert.equal(server.requestsFor('/slow').length, 1);
    assert.equal(server.requestsFor('/gzip-bomb').length, 1);
  });

  test('the same running poller reads a refused feed again once its publisher fixes it', async () => {
    for (const name of ['billion-laughs', 'external-entity', 'unknown-charset-http']) {
      fixed.add(name);
      await makeDue(ctx.store(), feeds.get(name) ?? -1);
      await waitFor(`the poller to read the fixed ${name}`, async () =>
        (await queueUrls(ctx.store(), account.id)).includes(`https://x.example/fixed-${name}`),
      );
      const f = await row(name);
      assert.equal(f.last_error, null, name);
      assert.equal(f.title, 'Fixed', name);
      assert.notEqual(f.last_success_at, null, name);
    }
  });
});
