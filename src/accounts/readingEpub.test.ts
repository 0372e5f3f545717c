/**
 * Issue 35: one reading-list entry as an EPUB (the OPDS catalogue's and the wallabag API's export): its
 * page, read by the real background reader from a loopback server, with its images fetched through the
 * media proxy's fetching and embedded; what fails is dropped to its alt text. EPUBCheck accepts every
 * book without an error or a warning, on both engines.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { before, test } from 'node:test';
import { strFromU8, strToU8, unzipSync } from 'fflate';
import { readReadingListOnce } from '../articles/pacedReader.js';
import { BUILDS, EpubBuilds } from '../digest/epub/builds.js';
import { epubImageSource } from '../digest/epub/images.js';
import { MediaProxy } from '../fetch/media.js';
import { importReadingList } from '../imports/importLinks.js';
import type { AccountId } from '../lib/authorized.js';
import { epubcheck, epubcheckSkipReason } from '../test/epubcheck.js';
import { useFeedServer } from '../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { PAGE_TEST_HOST, testReaderDeps } from '../test/pageFixtures.js';
import { addReadingItems } from '../test/readingFixtures.js';
import { isEpubBuildError, readingEntryEpub, readingEpubFileName } from './readingEpub.js';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const JPEG = Buffer.from(
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=',
  'base64',
);
const GIF = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');
const WEBP = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');
/** The most of an image these tests' proxy reads. */
const MAX_BYTES = 64 * 1024;

const skip = epubcheckSkipReason();

const image =
  (type: string, body: Buffer) =>
  (_req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(200, { 'content-type': type }).end(body);
  };

/** An article Readability keeps, with these images in its body. */
const article = (imgs: string): string =>
  '<!doctype html><html lang="en"><head><title>Harbour lights</title>' +
  '<meta property="og:site_name" content="The Coast Gazette"></head><body><article><h1>Harbour lights</h1>' +
  '<p>The old lighthouse keeper walks the pier each evening, counting the boats that come home late.</p>' +
  `<p>His logbook runs to forty volumes, every one of them written in the same green ink.</p>${imgs}` +
  '<p>When the fog comes in he rings the bell by hand, as his father did, every thirty seconds.</p>' +
  '<p>The harbour board has promised an automatic horn for years; the fishermen prefer the bell.</p>' +
  '</article></body></html>';

await describeEachEngine('a reading-list entry as an EPUB', (ctx) => {
  const server = useFeedServer(PAGE_TEST_HOST, (s) => {
    s.route('/img/pier.png', image('image/png', PNG));
    s.route('/img/keeper.jpg', image('image/jpeg', JPEG));
    s.route('/img/bell.gif', image('image/gif', GIF));
    s.route('/img/fog.webp', image('image/webp', WEBP));
    s.route('/img/huge.png', image('image/png', Buffer.concat([PNG, Buffer.alloc(MAX_BYTES)])));
    s.route('/img/page', image('text/html', Buffer.from('<p>not an image</p>')));
    s.route('/img/gone', (_req, res) => res.writeHead(404).end());
  });
  const proxy = (): MediaProxy =>
    new MediaProxy({
      policy: { allowPrivate: false, isAllowed: (a) => a === PAGE_TEST_HOST },
      limits: { maxBytes: MAX_BYTES, timeoutMs: 5000 },
    });
  let owner: AccountId;
  let entryId = 0;
  let plainId = 0;

  before(async () => {
    const store = ctx.store();
    owner = (await newAccount(store)).id;
    const img = (path: string, alt: string): string => `<img src="${server().url(path)}" alt="${alt}">`;
    const url = server().route('/harbour', (_req, res) => {
      const imgs = [
        img('/img/pier.png', 'The pier at dusk'),
        img('/img/keeper.jpg', 'The keeper'),
        img('/img/fog.webp', 'Fog over the bay'),
        img('/img/bell.gif', 'The bell'),
        img('/img/huge.png', 'A very large chart'),
        img('/img/page', 'Not a picture'),
        img('/img/gone', 'A lost photograph'),
        img('/img/pier.png', 'The pier again'),
      ].join('');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(article(`<p>${imgs}</p>`));
    });
    const csv = `title,url,time_added,tags,status\nHarbour lights,${url},1500000000,coast|slow,unread\n`;
    assert.equal((await importReadingList(store, owner, strToU8(csv), 'pocket')).imported, 1);
    const read = await readReadingListOnce(testReaderDeps(store), { perMinute: 600_000, hostRestMs: 0 });
    assert.equal(read.read, 1, JSON.stringify(read));
    const rows = await store.db
      .selectFrom('reading_list')
      .select('id')
      .where('account_id', '=', owner)
      .execute();
    entryId = rows[0]?.id ?? 0;
    const added = await addReadingItems(store, owner, [
      {
        url: 'https://example.org/unread?a=1&b=2',
        title: 'Not read <yet> & "quoted"',
        savedAt: '2026-10-01T10:00:00.000Z',
        description: 'A summary of a page nobody read.',
      },
    ]);
    plainId = added[0] ?? 0;
  });

  test('the entry read: cover, its chapter, its images embedded; the failed ones as alt text', async () => {
    const epub = await readingEntryEpub({ store: ctx.store(), images: proxy() }, owner, entryId);
    assert.ok(epub !== null);
    assert.equal(epub.fileName, `harbour-lights-${entryId}.epub`);
    assert.equal(epub.book.title, 'Harbour lights');
    const files = unzipSync(epub.bytes);
    const names = Object.keys(files).sort();
    assert.deepEqual(
      names.filter((n) => n.startsWith('EPUB/images/')),
      ['EPUB/images/1.png', 'EPUB/images/2.jpg', 'EPUB/images/3.gif'],
    );
    assert.deepEqual(Buffer.from(files['EPUB/images/1.png'] ?? []), PNG);
    assert.deepEqual(Buffer.from(files['EPUB/images/2.jpg'] ?? []), JPEG);
    assert.deepEqual(Buffer.from(files['EPUB/images/3.gif'] ?? []), GIF);
    const opf = strFromU8(files['EPUB/package.opf'] ?? new Uint8Array());
    assert.ok(opf.includes('<item id="img1" href="images/1.png" media-type="image/png"/>'), opf);
    assert.ok(opf.includes('<item id="img2" href="images/2.jpg" media-type="image/jpeg"/>'));
    assert.ok(opf.includes('<item id="img3" href="images/3.gif" media-type="image/gif"/>'));
    const chapters = names.filter((n) => /^EPUB\/s\d+-\d+\.xhtml$/.test(n));
    assert.deepEqual(chapters, ['EPUB/s1-1.xhtml'], 'one chapter, no section page');
    const chapter = strFromU8(files['EPUB/s1-1.xhtml'] ?? new Uint8Array());
    assert.ok(chapter.includes('<img src="images/1.png" alt="The pier at dusk"/>'), chapter);
    assert.ok(chapter.includes('<img src="images/2.jpg" alt="The keeper"/>'));
    assert.ok(chapter.includes('<img src="images/3.gif" alt="The bell"/>'));
    assert.ok(chapter.includes('<img src="images/1.png" alt="The pier again"/>'), 'one file for one address');
    for (const dropped of ['Fog over the bay', 'A very large chart', 'Not a picture', 'A lost photograph']) {
      assert.ok(chapter.includes(`[${dropped}]`), dropped);
    }
    assert.ok(chapter.includes('The old lighthouse keeper walks the pier'));
    assert.match(chapter, /The Coast Gazette/);
    const cover = strFromU8(files['EPUB/cover.xhtml'] ?? new Uint8Array());
    assert.match(cover, /<h1>Harbour lights<\/h1>/);
    assert.match(cover, /tagged coast, slow/);
    // Nothing remote: every src is a file of the book.
    for (const [name, bytes] of Object.entries(files)) {
      if (!name.endsWith('.xhtml')) continue;
      for (const m of strFromU8(bytes).matchAll(/\ssrc="([^"]*)"/g)) assert.match(m[1] ?? '', /^images\//);
    }
    // Each image was fetched once (the second <img> of the pier is the same file).
    assert.equal(server().requestsFor('/img/pier.png').length, 1);
  });

  test(
    'EPUBCheck accepts the entry with images, and one never read: no fatal, error or warning',
    { skip },
    async () => {
      for (const id of [entryId, plainId]) {
        const epub = await readingEntryEpub({ store: ctx.store(), images: proxy() }, owner, id);
        assert.ok(epub !== null);
        const report = await epubcheck(epub.bytes);
        assert.deepEqual([report.fatals, report.errors, report.warnings], [0, 0, 0], report.output);
      }
    },
  );

  test('an entry never read: its summary and link; without an image source no image is fetched', async () => {
    const before = server().requestsFor('/img/keeper.jpg').length;
    const plain = await readingEntryEpub({ store: ctx.store() }, owner, plainId);
    assert.ok(plain !== null);
    const files = unzipSync(plain.bytes);
    const chapter = strFromU8(files['EPUB/s1-1.xhtml'] ?? new Uint8Array());
    assert.ok(chapter.includes('<h1>Not read &lt;yet&gt; &amp; "quoted"</h1>'), chapter);
    assert.ok(chapter.includes('A summary of a page nobody read.'));
    assert.ok(chapter.includes('<a href="https://example.org/unread?a=1&amp;b=2">'));
    const read = await readingEntryEpub({ store: ctx.store() }, owner, entryId);
    assert.ok(read !== null);
    assert.equal(Object.keys(unzipSync(read.bytes)).filter((n) => n.includes('images/')).length, 0);
    assert.equal(server().requestsFor('/img/keeper.jpg').length, before);
  });

  test("another account's entry, and one that does not exist, are none", async () => {
    const other = (await newAccount(ctx.store())).id;
    assert.equal(await readingEntryEpub({ store: ctx.store() }, other, entryId), null);
    assert.equal(await readingEntryEpub({ store: ctx.store() }, owner, 987_654_321), null);
  });

  test('busy when every turn is taken and none may wait; failed past its time limit', async () => {
    const single = new EpubBuilds({ ...BUILDS, waiting: 0, idleMs: 0 });
    const deps = { store: ctx.store(), epubBuilds: single };
    // Another build holds the one turn.
    let release = (): void => undefined;
    const held = single.build(
      () => new Promise<null>((resolve) => (release = () => resolve(null))),
      'bounded',
    );
    await assert.rejects(readingEntryEpub(deps, owner, plainId), (err) => {
      assert.ok(isEpubBuildError(err, 'busy'), String(err));
      assert.equal(err.retryAfterSeconds, BUILDS.retryAfterSeconds);
      return true;
    });
    release();
    assert.equal(await held, null);
    assert.ok((await readingEntryEpub(deps, owner, plainId)) !== null, 'made once the turn is free');
    const slow = new EpubBuilds({ ...BUILDS, idleMs: 0, limits: { ...BUILDS.limits, timeMs: 1 } });
    await assert.rejects(readingEntryEpub({ ...deps, epubBuilds: slow }, owner, entryId), (err) =>
      isEpubBuildError(err, 'failed'),
    );
    await single.close();
    await slow.close();
  });

  test('the file name: the title in ASCII words, then the id', () => {
    assert.equal(
      readingEpubFileName('Ça déménage: 10 "tips" / tricks!', 7),
      'ca-demenage-10-tips-tricks-7.epub',
    );
    assert.equal(readingEpubFileName('日本語', 8), 'tidings-entry-8.epub');
  });

  test('the image source of the process fetches through a media proxy with its policy', async () => {
    const source = epubImageSource(() => ({ allowPrivate: false, isAllowed: (a) => a === PAGE_TEST_HOST }));
    const got = await source.image(server().url('/img/bell.gif'));
    assert.equal(got.kind, 'image');
    const refused = epubImageSource(() => ({ allowPrivate: false }));
    const no = await refused.image(server().url('/img/bell.gif'));
    assert.deepEqual([no.kind, no.kind === 'refused' ? no.reason : ''], ['refused', 'private_address']);
  });
});
