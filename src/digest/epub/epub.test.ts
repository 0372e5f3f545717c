/**
 * Issue 27, point 4: a digest of real-world article pages (news, a blog post with code and a table, a
 * German long read, an Arabic page, and links whose pages could not be read), read by the real page reader
 * from a loopback server, built into a digest and made into an EPUB, on both engines. EPUBCheck accepts it
 * without an error or a warning; it holds the cover, the table of contents by section, each read article
 * with its title, site and byline, the others as their link and summary, and nothing remote.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { before, test } from 'node:test';
import { strFromU8, unzipSync } from 'fflate';
import { enrichOnce } from '../../articles/enrich.js';
import { useFeedServer } from '../../test/feedFixtures.js';
import { epubcheck, epubcheckSkipReason } from '../../test/epubcheck.js';
import { digestsOf, queueFeedItem, saveUrl, testDigestDeps } from '../../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { PAGE_TEST_HOST, pageFixture, testReaderDeps } from '../../test/pageFixtures.js';
import { buildDigestNow } from '../build.js';
import { MediaProxy } from '../../fetch/media.js';
import { digestEpub } from './load.js';

const fixture = (name: string): Buffer => readFileSync(new URL(`./testdata/${name}`, import.meta.url));
const PAGES: Record<string, Buffer> = {
  '/news/tram-line': fixture('news-article.html'),
  '/blog/sqlite-wal': fixture('blog-post.html'),
  '/reportage/gletscher': fixture('magazine-longread.html'),
  '/tech/translation': pageFixture('rtl-arabic.html'),
};

const skip = epubcheckSkipReason();
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

await describeEachEngine('a digest as an EPUB', (ctx) => {
  const server = useFeedServer(PAGE_TEST_HOST, (s) => {
    for (const [path, body] of Object.entries(PAGES)) {
      s.route(path, (_req: unknown, res: ServerResponse) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
      });
    }
    // The blog post's chart, served as a PNG: embedded when the book is made with an image source.
    s.route('/images/chart.svg', (_req: unknown, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    });
    s.route('/gone', (_req: unknown, res: ServerResponse) => {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
    });
  });
  let accountId = 0;
  let digestId = 0;

  before(async () => {
    const store = ctx.store();
    accountId = (await newAccount(store)).id;
    await saveUrl(store, accountId, server().url('/news/tram-line'));
    await saveUrl(store, accountId, server().url('/blog/sqlite-wal'));
    await saveUrl(store, accountId, server().url('/tech/translation'));
    await saveUrl(store, accountId, server().url('/reportage/gletscher'));
    await saveUrl(store, accountId, server().url('/gone'), 'A page that is gone <& "quoted">');
    const feed = { feedUrl: server().url('/feed.xml'), feedTitle: 'Bergwelt Magazin' };
    await queueFeedItem(store, accountId, {
      ...feed,
      url: server().url('/bergwelt/lawinenlage'),
      title: 'Lawinenlage am Wochenende',
    });
    await queueFeedItem(store, accountId, {
      ...feed,
      url: server().url('/bergwelt/huetten-im-winter'),
      title: 'Hütten im Winter',
      summary: 'Wo man im Januar noch übernachten kann – eine Übersicht.',
    });
    const read = await enrichOnce(testReaderDeps(store), { accountId });
    assert.deepEqual([read.read, read.failed], [4, 1], JSON.stringify(read));
    const built = await buildDigestNow(testDigestDeps(store), accountId);
    assert.equal(built.status, 'built');
    digestId = (await digestsOf(store, accountId)).at(-1)?.id ?? 0;
  });

  test('the book: cover, contents by section, read articles as chapters, the others as link and summary', async () => {
    const epub = await digestEpub(ctx.store().db, accountId, digestId, 'https://tidings.example');
    assert.ok(epub !== null);
    const localDate = (await digestsOf(ctx.store(), accountId)).at(-1)?.local_date ?? '';
    assert.equal(epub.fileName, `tidings-${localDate}.epub`);
    assert.equal(epub.book.title, `Tidings — ${epub.book.dateLabel}`);
    assert.match(
      epub.book.identifier,
      /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    assert.deepEqual(epub.book.counts, { items: 7, entries: 7, articles: 4 });

    // The OCF container: "mimetype" first, stored (method 0), no extra field.
    const head = Buffer.from(epub.bytes.subarray(0, 38 + 20));
    assert.equal(head.readUInt32LE(0), 0x04034b50);
    assert.equal(head.readUInt16LE(8), 0, 'stored, not deflated');
    assert.equal(head.readUInt16LE(28), 0, 'no extra field');
    assert.equal(head.subarray(30, 38).toString(), 'mimetype');
    assert.equal(head.subarray(38, 58).toString(), 'application/epub+zip');

    const files = unzipSync(epub.bytes);
    const text = (name: string): string => {
      const f = files[name];
      assert.ok(f !== undefined, `${name} in ${Object.keys(files).join(', ')}`);
      return strFromU8(f);
    };
    const opf = text('EPUB/package.opf');
    assert.ok(opf.includes(`<dc:identifier id="uid">${epub.book.identifier}</dc:identifier>`));
    assert.match(opf, /<meta property="dcterms:modified">\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ<\/meta>/);
    const nav = text('EPUB/nav.xhtml');
    assert.match(nav, /<nav epub:type="toc" id="toc">/);
    const sections = [...nav.matchAll(/<li><a href="s\d+\.xhtml">([^<]+)<\/a>/g)].map((m) => m[1]);
    assert.deepEqual(sections, ['Saved', 'Bergwelt Magazin']);
    assert.match(text('EPUB/cover.xhtml'), new RegExp(`<h1>${epub.book.dateLabel}</h1>`));

    const chapters = Object.keys(files).filter((n) => /^EPUB\/s\d+-\d+\.xhtml$/.test(n));
    assert.equal(chapters.length, 7);
    const all = chapters.map(text).join('\n');
    assert.ok(all.includes('<h1>Council approves new tram line after decade of debate</h1>'));
    assert.match(all, /The Riverside Courier · By Priya Raman/);
    assert.ok(all.includes('Councillors voted 41 to 12 on Thursday night'));
    assert.ok(
      all.includes("[An artist's impression of a tram crossing the Old Bridge]"),
      'an image as its alt text',
    );
    assert.ok(all.includes('[Bar chart of the timings above]'));
    assert.ok(all.includes('PRAGMA</span> journal_mode = WAL;') || all.includes('journal_mode = WAL;'));
    assert.ok(all.includes('Um halb fünf Uhr morgens'));
    assert.match(all, /xml:lang="ar" lang="ar" dir="rtl"/);
    assert.match(all, /xml:lang="de" lang="de"/);
    // Not read: its link and summary.
    assert.ok(all.includes('Wo man im Januar noch übernachten kann – eine Übersicht.'));
    assert.ok(
      all.includes(
        `<a href="${server().url('/bergwelt/huetten-im-winter')}">Not read yet: the article on its site</a>`,
      ),
    );
    assert.ok(all.includes('A page that is gone &lt;&amp; "quoted"&gt;'));
    // Nothing remote is loaded: no src, no stylesheet or script from elsewhere, no private link.
    for (const [name, bytes] of Object.entries(files)) {
      if (!name.endsWith('.xhtml')) continue;
      const body = strFromU8(bytes);
      assert.doesNotMatch(body, /\ssrc=|<script|<iframe|<video|<img|<svg/i, name);
      assert.ok(!body.includes('token='), `${name} carries no private link`);
    }
  });

  test('EPUBCheck accepts it: no fatal, no error, no warning', { skip }, async () => {
    const epub = await digestEpub(ctx.store().db, accountId, digestId, 'https://tidings.example');
    assert.ok(epub !== null);
    const report = await epubcheck(epub.bytes);
    assert.deepEqual([report.fatals, report.errors, report.warnings], [0, 0, 0], report.output);
  });

  test('the same digest makes the same file; another account gets none', async () => {
    const a = await digestEpub(ctx.store().db, accountId, digestId, 'https://tidings.example');
    const b = await digestEpub(ctx.store().db, accountId, digestId, 'https://tidings.example');
    assert.ok(a !== null && b !== null);
    assert.deepEqual(Buffer.from(a.bytes), Buffer.from(b.bytes));
    const other = await newAccount(ctx.store());
    assert.equal(await digestEpub(ctx.store().db, other.id, digestId, 'https://tidings.example'), null);
  });

  test('with an image source, the image a page shows is in the book (the rest as alt text); EPUBCheck accepts it', async () => {
    const images = new MediaProxy({
      policy: { allowPrivate: false, isAllowed: (a) => a === PAGE_TEST_HOST },
    });
    const epub = await digestEpub(ctx.store().db, accountId, digestId, 'https://tidings.example', { images });
    assert.ok(epub !== null);
    assert.deepEqual(
      epub.book.images?.map((i) => [i.href, i.mediaType, i.src]),
      [['images/1.png', 'image/png', server().url('/images/chart.svg')]],
    );
    const files = unzipSync(epub.bytes);
    assert.deepEqual(Buffer.from(files['EPUB/images/1.png'] ?? []), PNG);
    const all = Object.entries(files)
      .filter(([n]) => n.endsWith('.xhtml'))
      .map(([, b]) => strFromU8(b))
      .join('\n');
    assert.ok(all.includes('<img src="images/1.png" alt="Bar chart of the timings above"/>'));
    // The news article's picture is on a host that does not resolve: its alt text, as before.
    assert.ok(all.includes("[An artist's impression of a tram crossing the Old Bridge]"));
    if (skip === undefined) {
      const report = await epubcheck(epub.bytes);
      assert.deepEqual([report.fatals, report.errors, report.warnings], [0, 0, 0], report.output);
    }
  });
});
