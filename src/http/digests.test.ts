import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { digestFeedUrl, ensureDigestToken, rotateDigestToken } from '../digest/token.js';
import { buildDigestNow } from '../digest/build.js';
import { EMAIL_ITEMS } from '../digest/limits.js';
import { loadDigest } from '../digest/load.js';
import { renderEmailHtml } from '../digest/render/html.js';
import { renderText } from '../digest/render/text.js';
import { parseFeed } from '../feeds/parse/parse.js';
import { TestClock, queueFeedItem, saveUrl, testDigestDeps } from '../test/digestPipeline.js';
import { createLogger } from '../logger.js';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';
import { FEED_DIGESTS } from './digests.js';
import { buildServer } from './server.js';

const BASE = 'http://127.0.0.1:8080';

/** The path and query of an absolute link of this instance, as `app.inject` takes it. */
const pathOf = (url: string): string => {
  assert.ok(url.startsWith(`${BASE}/`), url);
  return url.slice(BASE.length);
};

await describeEachEngine('private digest URLs', (ctx) => {
  let app: FastifyInstance;
  /** An account with two digests (the newer one has a feed item), and a second account with one. */
  let ada: { id: number; token: string; digests: number[] };
  let bob: { id: number; token: string; digest: number };

  before(async () => {
    const store = ctx.store();
    app = testServer(store);
    const clock = new TestClock('2026-11-20T08:00:00.000Z');
    const deps = testDigestDeps(store, { now: clock.now });
    const build = async (accountId: number): Promise<number> => {
      const outcome = await buildDigestNow(deps, accountId);
      assert.equal(outcome.status, 'built');
      return outcome.digestId;
    };

    const a = await newAccount(store);
    await saveUrl(store, a.id, 'https://example.org/first', 'First <saved> & "quoted"');
    const first = await build(a.id);
    clock.set('2026-11-21T08:00:00.000Z');
    await saveUrl(store, a.id, 'https://example.org/second', 'Second saved');
    await queueFeedItem(store, a.id, {
      feedUrl: 'https://feeds.example/rss',
      feedTitle: 'Example Feed',
      url: 'https://feeds.example/post',
      title: 'A feed post',
      summary: 'What the post says.',
    });
    const second = await build(a.id);
    ada = { id: a.id, token: (await ensureDigestToken(store.db, a.id)) ?? '', digests: [first, second] };

    const b = await newAccount(store);
    await saveUrl(store, b.id, 'https://example.org/bob', 'Bob only');
    bob = { id: b.id, token: (await ensureDigestToken(store.db, b.id)) ?? '', digest: await build(b.id) };
  });
  after(() => app.close());

  const get = (url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> =>
    app.inject({ method: 'GET', url, headers });

  const page = (digestId: number, token: string): string => `/digests/${digestId}?token=${token}`;
  const feed = (token: string): string => `/digests.atom?token=${token}`;

  const assertHeaders = (res: LightMyRequestResponse): void => {
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /style-src 'unsafe-inline'/);
    assert.doesNotMatch(csp, /script-src/);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['referrer-policy'], 'no-referrer');
  };

  test('the right token shows the digest as a web page, with strict headers', async () => {
    const [first, second] = ada.digests;
    const res = await get(page(second ?? 0, ada.token));
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'text/html; charset=utf-8');
    assertHeaders(res);
    assert.equal(res.headers['cache-control'], 'private, no-cache');
    assert.match(String(res.headers.etag), /^"[\w-]{27}"$/);
    assert.equal(res.headers['last-modified'], 'Sat, 21 Nov 2026 08:00:00 GMT');
    assert.match(res.body, /^<!DOCTYPE html>/);
    for (const text of [
      'Second saved',
      'A feed post',
      'Example Feed',
      'What the post says.',
      'feeds.example',
    ]) {
      assert.ok(res.body.includes(text), `the page shows ${text}`);
    }
    assert.ok(!res.body.includes('First'), 'only this digest');
    assert.ok(!res.body.includes('Read on the web'), 'the page does not link to itself');
    const older = await get(page(first ?? 0, ada.token));
    assert.equal(older.statusCode, 200);
    assert.ok(older.body.includes('First &lt;saved&gt; &amp; &quot;quoted&quot;'), 'escaped');
    const head = await app.inject({ method: 'HEAD', url: page(second ?? 0, ada.token) });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers.etag, res.headers.etag);
  });

  test('any other token, or none, is the same 404 whether the digest exists or not', async () => {
    const digest = ada.digests[0] ?? 0;
    const wellFormed = randomBytes(32).toString('base64url');
    const cases = [
      page(digest, wellFormed), // unknown token
      page(digest, bob.token), // another account's token
      page(bob.digest, ada.token), // another account's digest
      page(999_999, ada.token), // no such digest
      page(999_999, wellFormed),
      page(digest, ada.token.slice(1)), // malformed
      page(digest, `${ada.token}x`),
      page(digest, ''),
      `/digests/${digest}`,
      `${page(digest, ada.token)}&token=${ada.token}`, // given twice
      `/digests/abc?token=${ada.token}`,
      `/digests/-1?token=${ada.token}`,
    ];
    const bodies = new Set<string>();
    for (const url of cases) {
      const res = await get(url);
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      assertHeaders(res);
      const body = res.json<{ code: number; message: string }>();
      assert.equal(body.code, 40401);
      bodies.add(res.body);
    }
    assert.equal(bodies.size, 1, 'one answer for every case');
    for (const url of [feed(wellFormed), feed(''), '/digests.atom', feed(ada.token.toUpperCase())]) {
      const res = await get(url);
      assert.equal(res.statusCode, 404, url);
      assert.equal(res.json<{ code: number }>().code, 40401);
      assertHeaders(res);
    }
  });

  test('the Atom feed lists the account’s digests, parses back, and its links open the pages', async () => {
    const res = await get(feed(ada.token));
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/atom+xml; charset=utf-8');
    assertHeaders(res);
    assert.equal(res.headers['last-modified'], 'Sat, 21 Nov 2026 08:00:00 GMT');
    const parsed = parseFeed(Buffer.from(res.body), { url: `${BASE}${feed(ada.token)}` });
    assert.equal(parsed.format, 'atom');
    assert.equal(parsed.feedUrl, digestFeedUrl(BASE, ada.token));
    const [second, first] = [...ada.digests].reverse();
    assert.deepEqual(
      parsed.items.map((i) => i.url),
      [`${BASE}${page(second ?? 0, ada.token)}`, `${BASE}${page(first ?? 0, ada.token)}`],
    );
    assert.ok((parsed.items[0]?.contentHtml ?? '').includes('A feed post'));
    assert.ok((parsed.items[1]?.contentHtml ?? '').includes('First &lt;saved&gt;'));
    assert.ok(!res.body.includes('Bob only'), 'only this account’s digests');
    for (const item of parsed.items) {
      const opened = await get(pathOf(item.url ?? ''));
      assert.equal(opened.statusCode, 200, item.url ?? '');
    }
    const bobs = parseFeed(Buffer.from((await get(feed(bob.token))).body));
    assert.deepEqual(
      bobs.items.map((i) => i.title),
      ['Saturday 21 November 2026: 1 link'],
    );
  });

  test('an account with no digest yet gets a valid, empty feed', async () => {
    const { id } = await newAccount(ctx.store());
    const token = (await ensureDigestToken(ctx.store().db, id)) ?? '';
    const res = await get(feed(token));
    assert.equal(res.statusCode, 200);
    assert.equal(parseFeed(Buffer.from(res.body)).items.length, 0);
  });

  test(`the feed holds the latest ${FEED_DIGESTS} digests, newest first`, async () => {
    const store = ctx.store();
    const { id } = await newAccount(store);
    const clock = new TestClock('2026-09-01T12:00:00.000Z');
    const deps = testDigestDeps(store, { now: clock.now });
    const built: number[] = [];
    for (let day = 0; day < FEED_DIGESTS + 2; day++) {
      await saveUrl(store, id, `https://example.org/day-${day}`, `Day ${day}`);
      const outcome = await buildDigestNow(deps, id);
      assert.equal(outcome.status, 'built');
      built.push(outcome.digestId);
      clock.advance(86_400_000);
    }
    const token = (await ensureDigestToken(store.db, id)) ?? '';
    const parsed = parseFeed(Buffer.from((await get(feed(token))).body));
    assert.deepEqual(
      parsed.items.map((i) => i.url),
      built
        .slice(-FEED_DIGESTS)
        .reverse()
        .map((d) => `${BASE}${page(d, token)}`),
    );
  });

  test('conditional GET: a matching ETag or an unchanged date is 304, a new digest changes both', async () => {
    const first = await get(feed(ada.token));
    const etag = String(first.headers.etag);
    const lastModified = String(first.headers['last-modified']);
    const cases: [Record<string, string>, number][] = [
      [{ 'if-none-match': etag }, 304],
      [{ 'if-none-match': `W/${etag}` }, 304],
      [{ 'if-none-match': `"other", ${etag}` }, 304],
      [{ 'if-none-match': '*' }, 304],
      [{ 'if-none-match': '"other"' }, 200],
      [{ 'if-modified-since': lastModified }, 304],
      [{ 'if-modified-since': 'Sat, 21 Nov 2026 07:59:59 GMT' }, 200],
      [{ 'if-modified-since': 'not a date' }, 200],
      // If-None-Match decides when both are sent.
      [{ 'if-none-match': '"other"', 'if-modified-since': lastModified }, 200],
    ];
    for (const [headers, status] of cases) {
      const res = await get(feed(ada.token), headers);
      assert.equal(res.statusCode, status, JSON.stringify(headers));
      assert.equal(res.headers.etag, etag);
      if (status === 304) assert.equal(res.body, '');
    }
    const pageRes = await get(page(ada.digests[0] ?? 0, ada.token));
    const again = await get(page(ada.digests[0] ?? 0, ada.token), {
      'if-none-match': String(pageRes.headers.etag),
    });
    assert.equal(again.statusCode, 304);

    // A new digest: a new ETag and date, and the old validators no longer match.
    const store = ctx.store();
    await saveUrl(store, ada.id, 'https://example.org/third', 'Third');
    const clock = new TestClock('2026-11-22T08:00:00.000Z');
    assert.equal((await buildDigestNow(testDigestDeps(store, { now: clock.now }), ada.id)).status, 'built');
    const changed = await get(feed(ada.token), { 'if-none-match': etag });
    assert.equal(changed.statusCode, 200);
    assert.notEqual(changed.headers.etag, etag);
    assert.equal(changed.headers['last-modified'], 'Sun, 22 Nov 2026 08:00:00 GMT');
    assert.equal((await get(feed(ada.token), { 'if-modified-since': lastModified })).statusCode, 200);
    assert.equal(parseFeed(Buffer.from(changed.body)).items.length, 3);
  });

  test('the email’s "Read on the web" link carries the token and opens the page', async () => {
    const loaded = await loadDigest(ctx.store().db, bob.id, bob.digest, BASE, { first: EMAIL_ITEMS });
    assert.ok(loaded !== null);
    const link = `${BASE}${page(bob.digest, bob.token)}`;
    assert.equal(loaded.view.links.web, link);
    assert.ok(renderEmailHtml(loaded.view).includes(`href="${link}"`));
    assert.ok(renderText(loaded.view).includes(`Read on the web: ${link}`));
    assert.equal((await get(pathOf(link))).statusCode, 200);
  });

  test('the token never reaches the log: request lines, 404s, 304s and malformed requests', async () => {
    const lines: string[] = [];
    const logged = buildServer({
      config: { trustProxy: false, queueLimit: 10_000, baseUrl: BASE },
      store: ctx.store(),
      logger: createLogger('info', { write: (line: string) => lines.push(line) }),
    });
    try {
      const ok = await logged.inject({ url: page(bob.digest, bob.token) });
      const etag = String(ok.headers.etag);
      const requests: [string, Record<string, string>, number][] = [
        [page(bob.digest, bob.token), {}, 200],
        [page(bob.digest, bob.token), { 'if-none-match': etag }, 304],
        [feed(bob.token), {}, 200],
        [page(ada.digests[0] ?? 0, bob.token), {}, 404],
        [`/digests/${bob.digest}?TOKEN=${bob.token}`, {}, 404],
        [`/digests.atom?to%6Ben=${bob.token}`, {}, 200],
        [`/digests/%E0%A4?token=${bob.token}`, {}, 400],
        [`/nowhere?token=${bob.token}`, {}, 404],
      ];
      for (const [url, headers, status] of requests) {
        assert.equal((await logged.inject({ url, headers })).statusCode, status, url);
      }
    } finally {
      await logged.close();
    }
    const out = lines.join('');
    // Every request but the one with a broken path (Fastify answers it before routing) has its line.
    assert.ok(lines.filter((l) => l.includes('"msg":"request"')).length >= 8, out);
    assert.ok(out.includes('token=[redacted]'), out);
    assert.ok(!out.includes(bob.token), `the log holds the token:\n${out}`);
  });

  test('rotating the token: the old links are 404 at once, the new ones work', async () => {
    const { id } = await newAccount(ctx.store());
    await saveUrl(ctx.store(), id, 'https://example.org/rotate', 'Rotate me');
    const built = await buildDigestNow(testDigestDeps(ctx.store()), id);
    assert.equal(built.status, 'built');
    const digestId = built.digestId;
    const old = (await ensureDigestToken(ctx.store().db, id)) ?? '';
    assert.equal((await get(page(digestId, old))).statusCode, 200);
    const fresh = (await rotateDigestToken(ctx.store().db, id)) ?? '';
    assert.notEqual(fresh, old);
    assert.match(fresh, /^[\w-]{43}$/);
    assert.equal((await get(page(digestId, old))).statusCode, 404);
    assert.equal((await get(feed(old))).statusCode, 404);
    assert.equal((await get(page(digestId, fresh))).statusCode, 200);
    assert.equal((await get(feed(fresh))).statusCode, 200);
    assert.equal(await ensureDigestToken(ctx.store().db, id), fresh, 'the new one is kept');
    assert.equal(await rotateDigestToken(ctx.store().db, 999_999), null, 'no such account');
    assert.equal(await ensureDigestToken(ctx.store().db, 999_999), null);
  });
});
