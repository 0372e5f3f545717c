import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { ATOM_ENTRY_ITEMS, DIGEST_PAGE_ITEMS } from '../digest/limits.js';
import { ensureDigestToken } from '../digest/token.js';
import { parseFeed } from '../feeds/parse/parse.js';
import { insertLargeDigest } from '../test/bigDigest.js';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';

/*
 * A digest of 10,000 items (the `max-items` ceiling) read through its private URLs. Whole, it made an
 * 8.6 MB Atom feed and an 8.6 MB page, each request holding the server for about a second. Now the feed's
 * entry carries the first ATOM_ENTRY_ITEMS items and the page DIGEST_PAGE_ITEMS at a time, within the
 * bounds below, and every item is still reachable by following the pages.
 */
const ATOM_BOUND = 150_000;
const PAGE_BOUND = 250_000;
const ITEMS = 10_000;
const BASE = 'http://127.0.0.1:8080';

/** The titles of the large digest's items on a page (each is unique and appears once an item). */
const titlesIn = (body: string): string[] => [...body.matchAll(/Big item #(\d+)#/g)].map((m) => m[1] ?? '');

/** The next page's link on a page, as a path to inject; null on the last page. */
function nextPage(body: string): string | null {
  const m = /<a class="td-link" href="([^"]+)"[^>]*>Next page →<\/a>/.exec(body);
  return m?.[1] === undefined ? null : m[1].replace(/&amp;/g, '&').slice(BASE.length);
}

const range = (from: number, to: number): string[] =>
  Array.from({ length: to - from }, (_, i) => String(from + i));

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

await describeEachEngine('a digest of 10,000 items on the web and in Atom', (ctx) => {
  let app: FastifyInstance;
  let token: string;
  let digestId: number;
  let web: string;

  before(async () => {
    const store = ctx.store();
    app = testServer(store);
    const { id } = await newAccount(store);
    digestId = await insertLargeDigest(store, id, ITEMS);
    token = (await ensureDigestToken(store.db, id)) ?? '';
    web = `/digests/${digestId}?token=${token}`;
  });
  after(() => app.close());

  test(`the Atom feed carries the first ${ATOM_ENTRY_ITEMS} items, the count, and a link to the rest, under ${ATOM_BOUND} bytes`, async () => {
    const res = await app.inject({ url: `/digests.atom?token=${token}` });
    assert.equal(res.statusCode, 200);
    assert.ok(res.body.length < ATOM_BOUND, `the feed is ${res.body.length} bytes`);
    const [entry, ...others] = parseFeed(Buffer.from(res.body)).items;
    assert.ok(entry !== undefined);
    assert.equal(others.length, 0);
    assert.equal(entry.title, 'Sunday 22 November 2026: 10000 links');
    const content = entry.contentHtml ?? '';
    assert.equal(titlesIn(content).length, ATOM_ENTRY_ITEMS);
    assert.deepEqual(new Set(titlesIn(content)), new Set(range(0, ATOM_ENTRY_ITEMS)));
    assert.ok(content.includes('10000 new links: 1000 saved, 9000 from 5 feeds.'));
    assert.match(
      content,
      new RegExp(`…and ${ITEMS - ATOM_ENTRY_ITEMS} more links\\. <a [^>]*href="${escape(BASE + web)}"`),
    );
  });

  test(`the web page shows ${DIGEST_PAGE_ITEMS} items a page, under ${PAGE_BOUND} bytes, with links between pages`, async () => {
    const first = await app.inject({ url: web });
    assert.equal(first.statusCode, 200);
    assert.ok(first.body.length < PAGE_BOUND, `page 1 is ${first.body.length} bytes`);
    assert.deepEqual(new Set(titlesIn(first.body)), new Set(range(0, DIGEST_PAGE_ITEMS)));
    assert.ok(first.body.includes(`Links 1–${DIGEST_PAGE_ITEMS} of ${ITEMS} · page 1 of 50`));
    assert.ok(first.body.includes('10000 new links: 1000 saved, 9000 from 5 feeds.'));
    assert.ok(!first.body.includes('Previous page'));
    assert.equal(nextPage(first.body), `${web}&page=2`);

    const second = await app.inject({ url: `${web}&page=2` });
    assert.equal(second.statusCode, 200);
    assert.ok(second.body.length < PAGE_BOUND, `page 2 is ${second.body.length} bytes`);
    assert.deepEqual(
      new Set(titlesIn(second.body)),
      new Set(range(DIGEST_PAGE_ITEMS, 2 * DIGEST_PAGE_ITEMS)),
    );
    assert.ok(second.body.includes(`Links 201–400 of ${ITEMS} · page 2 of 50`));
    assert.ok(second.body.includes(`href="${BASE}${web}" style`), 'page 2 links back to page 1');
    assert.equal(nextPage(second.body), `${web}&page=3`);

    const last = await app.inject({ url: `${web}&page=50` });
    assert.equal(last.statusCode, 200);
    assert.equal(nextPage(last.body), null);
    assert.deepEqual(new Set(titlesIn(last.body)), new Set(range(ITEMS - DIGEST_PAGE_ITEMS, ITEMS)));
  });

  test('pages that do not exist are 404, whatever the page parameter says', async () => {
    for (const page of ['51', '0', '-1', 'abc', '1.5', '01', '9999999', '2&page=3']) {
      const res = await app.inject({ url: `${web}&page=${page}` });
      assert.equal(res.statusCode, 404, page);
      assert.equal(res.json<{ code: number }>().code, 40401);
    }
  });

  test('following "Next page" from the first page reaches every item of the digest exactly once', async () => {
    const seen: string[] = [];
    let url: string | null = web;
    let pages = 0;
    while (url !== null) {
      const res: LightMyRequestResponse = await app.inject({ url });
      assert.equal(res.statusCode, 200, url);
      seen.push(...titlesIn(res.body));
      url = nextPage(res.body);
      pages++;
    }
    assert.equal(pages, ITEMS / DIGEST_PAGE_ITEMS);
    assert.equal(seen.length, ITEMS);
    assert.deepEqual(new Set(seen), new Set(range(0, ITEMS)));
  });
});
