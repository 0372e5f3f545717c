import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseFeed } from '../../feeds/parse/parse.js';
import { sampleDigest } from '../../test/digestFixtures.js';
import { DIGEST_PAGE_ITEMS } from '../limits.js';
import { digestPageUrl, digestView } from '../view.js';
import { renderAtom } from './atom.js';
import { countsLine } from './common.js';
import { renderEmailHtml, renderWebPage } from './html.js';
import { renderText } from './text.js';

/*
 * Renderings of part of a digest (src/digest/limits.ts): a page of the web page links its neighbours; an
 * email or an Atom entry showing the first items says how many more there are and links the web page. The
 * sample digest's six rows stand for a slice of a digest of 1000 items.
 */

const TOKEN = 'T'.repeat(43);
const WEB = `https://news.example/digests/42?token=${TOKEN}`;
const WHOLE = { items: 1000, saved: 100, feeds: 7 };
const base = sampleDigest({ token: TOKEN });

/** Every href value in the markup, entities decoded. */
const hrefs = (html: string): string[] =>
  [...html.matchAll(/\bhref="([^"]*)"/g)].map((m) => (m[1] ?? '').replace(/&amp;/g, '&'));

test('page links: the first page is the digest link itself, later ones add page=N', () => {
  assert.equal(digestPageUrl(WEB, 1), WEB);
  assert.equal(digestPageUrl(WEB, 2), `${WEB}&page=2`);
  assert.equal(digestPageUrl('https://news.example/digests/42', 3), 'https://news.example/digests/42?page=3');
});

test('a later page of the web page: counts of the whole digest, where it is, links to both neighbours', () => {
  const offset = 2 * DIGEST_PAGE_ITEMS;
  const page = digestView({ ...base, tally: WHOLE, offset });
  assert.deepEqual(page.shown, { first: offset + 1, last: offset + 6 });
  assert.deepEqual(page.page, { number: 3, count: 5, previous: `${WEB}&page=2`, next: `${WEB}&page=4` });
  assert.equal(
    countsLine(page),
    '1000 new links: 100 saved, 900 from 7 feeds. 5 more are waiting for the next digest.',
  );
  const html = renderWebPage(page);
  assert.match(html, /<title>Tidings — Sunday 22 November 2026 \(page 3 of 5\)<\/title>/);
  assert.equal(
    html.split(`Links ${offset + 1}–${offset + 6} of 1000 · page 3 of 5`).length,
    3,
    'above and below',
  );
  const links = hrefs(html);
  assert.equal(links.filter((h) => h === `${WEB}&page=2`).length, 2);
  assert.equal(links.filter((h) => h === `${WEB}&page=4`).length, 2);
  assert.ok(!html.includes('more links'), 'a page does not count what follows it: the pager does');
});

test('the first and the last page have one neighbour; a digest of one page has no pager', () => {
  const first = digestView({ ...base, tally: WHOLE });
  assert.deepEqual(first.page, { number: 1, count: 5, previous: null, next: `${WEB}&page=2` });
  assert.ok(!renderWebPage(first).includes('Previous page'));
  const last = digestView({ ...base, tally: WHOLE, offset: 4 * DIGEST_PAGE_ITEMS });
  assert.deepEqual(last.page, { number: 5, count: 5, previous: `${WEB}&page=4`, next: null });
  assert.ok(!renderWebPage(last).includes('Next page'));
  const whole = digestView(base);
  assert.deepEqual(whole.page, { number: 1, count: 1, previous: null, next: null });
  assert.ok(!renderWebPage(whole).includes('Pages of this digest'));
});

test('an email or Atom entry of the first items ends with how many more, linking the web page', () => {
  const firstItems = digestView({ ...base, tally: WHOLE });
  const html = renderEmailHtml(firstItems);
  assert.match(
    html,
    /…and 994 more links\. <a class="td-link" href="[^"]+"[^>]*>Read the whole digest on the web<\/a>/,
  );
  assert.ok(hrefs(html).includes(WEB));
  assert.ok(!html.includes('Pages of this digest'), 'no pager in an email');
  assert.match(
    renderText(firstItems),
    /\n…and 994 more links\. Read the whole digest on the web:\nhttps:\/\/news\.example\/digests\/42\?token=T+\n/,
  );
  const atom = renderAtom({
    account: { id: 7, name: 'Ada', created_at: '2026-01-01T00:00:00.000Z' },
    digests: [firstItems],
    feedUrl: 'https://news.example/digests.atom',
    baseUrl: 'https://news.example',
  });
  const [entry] = parseFeed(Buffer.from(atom)).items;
  assert.ok(entry !== undefined);
  assert.equal(entry.title, 'Sunday 22 November 2026: 1000 links');
  assert.match(
    entry.contentHtml ?? '',
    /…and 994 more links\. <a [^>]*>Read the whole digest on the web<\/a>/,
  );
  assert.ok(hrefs(entry.contentHtml ?? '').includes(WEB));
  const whole = digestView(base);
  assert.ok(!renderEmailHtml(whole).includes('more links'));
  assert.ok(!renderText(whole).includes('more links'));
});
