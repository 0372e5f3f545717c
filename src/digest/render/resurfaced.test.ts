import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { strFromU8, unzipSync } from 'fflate';
import { withActionLinks } from '../actionLinks.js';
import { mintActionTokens } from '../actionTokens.js';
import { buildDigestNow } from '../build.js';
import { digestEpub } from '../epub/load.js';
import { EMAIL_ITEMS } from '../limits.js';
import { encodedTextBytes } from '../mail.js';
import { loadClaimedDigests, loadDigest, loadLatestDigests } from '../load.js';
import { savedAgo } from '../resurfacedView.js';
import { setReadingState } from '../../store/readingList.js';
import { epubcheck, epubcheckSkipReason } from '../../test/epubcheck.js';
import { TestClock, digestsOf, saveUrl, testDigestDeps } from '../../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { addReadingItems } from '../../test/readingFixtures.js';
import { renderAtom } from './atom.js';
import { fitEmail } from './fit.js';
import { renderEmailHtml, renderWebPage } from './html.js';
import { renderText } from './text.js';

/**
 * "From your reading list" in every output of a digest: the plain-text and HTML email (with its links),
 * the web page, the Atom entry and the EPUB (a section of its table of contents, each item a chapter: its
 * own text where its export brought one). An email cut to fit drops the section before any entry.
 */

const BASE = 'https://tidings.example';
const skip = epubcheckSkipReason();

await describeEachEngine('the reading-list section in every output', (ctx) => {
  let accountId = 0;
  let digestId = 0;
  let ids: number[] = [];
  const clock = new TestClock('2026-11-23T07:00:00Z');

  before(async () => {
    const store = ctx.store();
    accountId = (await newAccount(store)).id;
    await saveUrl(store, accountId, 'https://own.example/today', 'Today’s own link');
    ids = await addReadingItems(store, accountId, [
      {
        url: 'https://essays.example/on-gardens',
        title: 'On gardens & <walls>',
        savedAt: '2023-06-01T00:00:00.000Z',
        tags: ['essays', 'slow'],
        description: 'A walk through walled gardens.',
        html: '<article><p>Every garden begins with a wall.</p><img src="https://cdn.example/x.jpg" alt="A wall"></article>',
      },
      {
        url: 'https://news.example/2025/story',
        title: 'A story from last year',
        savedAt: '2025-10-01T00:00:00.000Z',
      },
    ]);
    const built = await buildDigestNow(testDigestDeps(store, { now: clock.now }), accountId);
    assert.equal(built.status, 'built');
    digestId = (await digestsOf(store, accountId)).at(-1)?.id ?? 0;
  });

  const emailView = async () => {
    const digest = (await digestsOf(ctx.store(), accountId)).at(-1);
    assert.ok(digest !== undefined);
    const loaded = (await loadClaimedDigests(ctx.store().db, [digest], BASE, EMAIL_ITEMS)).get(digestId);
    assert.ok(loaded !== undefined);
    const [token] = await mintActionTokens(ctx.store().db, [{ accountId, digestId }], clock.now());
    return withActionLinks(loaded.view, BASE, token ?? null);
  };

  test('the email: text and HTML, each item with title, site, when saved, tags and its two links', async () => {
    const view = await emailView();
    assert.deepEqual(
      view.resurfaced.map((r) => [r.title, r.site, r.savedLabel, r.tags]),
      [
        ['On gardens & <walls>', 'essays.example', 'saved 3 years ago', ['essays', 'slow']],
        ['A story from last year', 'news.example', 'saved a year ago', []],
      ],
    );
    const text = renderText(view);
    const section = text.slice(text.indexOf('FROM YOUR READING LIST'));
    assert.match(
      section,
      /^FROM YOUR READING LIST\n=+\n\n\* On gardens & <walls>\n {2}essays\.example · saved 3 years ago · tagged essays, slow\n {2}A walk through walled gardens\.\n {2}https:\/\/essays\.example\/on-gardens\n {2}Archive: https:\/\/tidings\.example\/digest-actions\/\S+\?do=archive&reading=\d+\n {2}Keep for tomorrow: \S+\?do=tomorrow&reading=\d+\n/,
    );
    assert.ok(
      text.indexOf('SAVED') < text.indexOf('FROM YOUR READING LIST'),
      'after the digest’s own entries',
    );
    const html = renderEmailHtml(view);
    assert.ok(html.includes('From your reading list</h2>'));
    assert.ok(html.includes('>On gardens &amp; &lt;walls&gt;</a>'), 'escaped');
    assert.ok(html.includes('<time datetime="2023-06-01T00:00:00.000Z">saved 3 years ago</time>'));
    assert.equal((html.match(/do=archive&amp;reading=/g) ?? []).length, 2);
    assert.equal((html.match(/do=tomorrow&amp;reading=/g) ?? []).length, 2);
  });

  test('an email cut to fit drops the section before any entry', async () => {
    const view = await emailView();
    const without = renderEmailHtml({ ...view, resurfaced: [], cut: view.cut + 2 });
    assert.ok(encodedTextBytes(renderEmailHtml(view)) > encodedTextBytes(without));
    const fitted = fitEmail(view, encodedTextBytes(without));
    assert.deepEqual(fitted.view.resurfaced, []);
    assert.deepEqual(
      fitted.view.groups.map((g) => g.items.map((i) => i.url)),
      view.groups.map((g) => g.items.map((i) => i.url)),
      'every entry kept',
    );
    assert.match(fitted.html, /…and 2 more entries, cut to keep this email whole/);
    assert.deepEqual(fitEmail(view).view.resurfaced.length, 2, 'a small email keeps it');
  });

  test('the web page (first page; an item archived since says so) and the Atom entry', async () => {
    await setReadingState(ctx.store().db, accountId, ids[1] ?? 0, 'archived', clock.now().toISOString());
    const loaded = await loadDigest(ctx.store().db, accountId, digestId, BASE, { page: 1 });
    assert.ok(loaded !== null);
    const web = renderWebPage(loaded.view);
    assert.ok(web.includes('From your reading list</h2>'));
    assert.ok(web.includes('A walk through walled gardens.'));
    assert.match(web, /A story from last year<\/a>[\s\S]*?Archived<\/p>/);
    const second = await loadDigest(ctx.store().db, accountId, digestId, BASE, { page: 2 });
    assert.deepEqual(second?.view.resurfaced, [], 'a later page is the feeds’ rest');
    const latest = await loadLatestDigests(ctx.store().db, accountId, 20, 50, BASE);
    assert.ok(latest !== null);
    const atom = renderAtom({
      account: { id: accountId, name: 'reader', created_at: '2026-11-01T00:00:00.000Z' },
      digests: latest.digests.map((d) => d.view),
      feedUrl: `${BASE}/digests.atom`,
      baseUrl: BASE,
    });
    const entry = atom.slice(atom.indexOf('<entry>'));
    assert.ok(entry.includes('From your reading list</h2>'), 'in the entry’s HTML content');
    assert.ok(entry.includes('>On gardens &amp; &lt;walls&gt;</a>'));
    assert.ok(!atom.includes('digest-actions'), 'no action links in the feed');
    await setReadingState(ctx.store().db, accountId, ids[1] ?? 0, 'unread', clock.now().toISOString());
  });

  test(
    'the EPUB: a section of the contents, the own text as a chapter, EPUBCheck clean',
    { skip },
    async () => {
      const epub = await digestEpub(ctx.store().db, accountId, digestId, BASE);
      assert.ok(epub !== null);
      assert.deepEqual(
        epub.book.sections.map((s) => [s.title, s.entries.length]),
        [
          ['Saved', 1],
          ['From your reading list', 2],
        ],
      );
      const files = unzipSync(epub.bytes);
      const text = (name: string) => strFromU8(files[name] ?? new Uint8Array());
      const nav = text('EPUB/nav.xhtml');
      assert.match(nav, /<li><a href="s2\.xhtml">From your reading list<\/a>/);
      assert.ok(text('EPUB/toc.ncx').includes('<text>From your reading list</text>'));
      const chapter = text('EPUB/s2-1.xhtml');
      assert.ok(chapter.includes('Every garden begins with a wall.'));
      assert.ok(chapter.includes('[A wall]'), 'its image as its alt text, never loaded');
      assert.ok(chapter.includes('essays.example · saved 3 years ago · tagged essays, slow'));
      assert.ok(text('EPUB/s2-2.xhtml').includes('Not read yet: the article on its site'));
      assert.deepEqual(
        epub.book.counts,
        { items: 1, entries: 1, articles: 1 },
        'the cover counts the digest’s own',
      );
      const report = await epubcheck(epub.bytes);
      assert.deepEqual([report.fatals, report.errors, report.warnings], [0, 0, 0], report.output);
    },
  );
});

test('"saved … ago" counts from the digest’s build', () => {
  const at = '2026-11-23T07:00:00.000Z';
  assert.equal(savedAgo('2026-11-23T01:00:00.000Z', at), 'saved today');
  assert.equal(savedAgo('2026-11-22T01:00:00.000Z', at), 'saved yesterday');
  assert.equal(savedAgo('2026-11-01T00:00:00.000Z', at), 'saved 22 days ago');
  assert.equal(savedAgo('2026-09-01T00:00:00.000Z', at), 'saved 2 months ago');
  assert.equal(savedAgo('2025-11-01T00:00:00.000Z', at), 'saved a year ago');
  assert.equal(savedAgo('2016-11-01T00:00:00.000Z', at), 'saved 10 years ago');
  assert.equal(savedAgo('not a date', at), 'saved some time ago');
});
