/**
 * Issue 34 point 7, "done when": the digest's email, its web page and the reading view of a saved page,
 * opened in Chromium, load nothing from a third party, while their pictures do load, through Tidings' own
 * media proxy. Every request the browser makes is recorded (playwright's page.on('request')); the images'
 * server (127.0.0.2, another origin than Tidings' 127.0.0.1) is the third party, and it must only ever see
 * the proxy's requests. The page has a lead image, an inline image, a tracking pixel and what cannot be
 * proxied (srcset, <picture><source>, background attributes, CSS url() in styles); a feed item brings its
 * own picture. The real pipeline throughout: the page reader, the digest build, the email's delivery.
 * A newsletter comes in too (POSTed to the pipeline as mail), with a photo, an open pixel and a hidden
 * image: its entry in the email and its reading view load nothing from a third party either.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { enrichOnce } from '../articles/enrich.js';
import { buildDigestNow } from '../digest/build.js';
import { deliverDueDigests } from '../digest/deliver.js';
import type { DigestDeps } from '../digest/deps.js';
import { digestTokenOf } from '../digest/token.js';
import { MediaSigner } from '../fetch/mediaKey.js';
import {
  type Browser,
  chromiumSkipReason,
  closeBrowserAndServer,
  launchBrowser,
  listeningServer,
  imagesSettled,
} from '../test/browser.js';
import { RecordingMailer, queueFeedItem, saveUrl, setEmail, testDigestDeps } from '../test/digestPipeline.js';
import { FeedServer } from '../test/feedServer.js';
import { describeEachEngine, newAccount, silentLogger } from '../test/harness.js';
import { TEST_INBOUND, addressOfAccount } from '../test/inbound.js';
import { ingestMessage } from '../newsletters/ingest.js';
import { PAGE_TEST_HOST, pageOf, testReaderDeps } from '../test/pageFixtures.js';

const skip = chromiumSkipReason();

/** A 1×1 PNG: every picture of the test (its natural width is 1 once it loads). */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

const PICTURES = ['lead', 'inline', 'feed', 'srcset', 'source', 'bg', 'cell', 'div', 'pixel'];
/** The newsletter's: a photo (proxied), an open pixel and a hidden image (both dropped on arrival). */
const LETTER_PICTURES = ['nl-photo', 'nl-open', 'nl-hidden'];

/** A newsletter with its pictures on the images' server. */
const letter = (to: string, images: string): Buffer =>
  Buffer.from(
    [
      'From: "Harbour Letter" <letter@harbour.example>',
      `To: ${to}`,
      'Subject: Harbour Letter: the new quay',
      'Date: Fri, 06 Nov 2026 08:00:00 +0000',
      'Message-ID: <quay-1@harbour.example>',
      'MIME-Version: 1.0',
      'Content-Type: text/html; charset=utf-8',
      '',
      `<p>The new quay opened on Tuesday, and the ferries land again at the old town.</p>`,
      `<p><img src="${images}/nl-photo.png" alt="the quay" width="600" height="400"></p>`,
      `<img src="${images}/nl-open.png?r=reader-42" width="1" height="1" alt="">`,
      `<div style="display:none"><img src="${images}/nl-hidden.png" alt=""></div>`,
      '<p>Read on: <a href="https://harbour.example/quay?utm_source=letter">the whole story</a>.</p>',
      '',
    ].join('\r\n'),
    'utf8',
  );

/** The saved article: pictures of every kind on the images' server. */
const article = (images: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tides, pictured</title>
<meta property="og:title" content="Tides, pictured">
<meta property="og:image" content="${images}/lead.png">
<meta property="og:image:width" content="1200"><meta property="og:image:height" content="800">
</head><body><article><h1>Tides, pictured</h1>
<p>The first paragraph, with a picture below it.</p>
<figure><img src="${images}/inline.png" alt="inline" width="600" height="400" srcset="${images}/srcset.png 2x"></figure>
<picture><source srcset="${images}/source.png" type="image/png"><img src="${images}/inline.png" alt="again"></picture>
<img src="${images}/pixel.png" width="1" height="1" alt="">
<table background="${images}/bg.png"><tr><td style="background:url(${images}/cell.png)">A cell.</td></tr></table>
<div style="background-image:url('${images}/div.png')">A block.</div>
${'<p>The sea rises and falls twice a day, pulled by the moon and, a little, by the sun.</p>\n'.repeat(40)}
</article></body></html>`;

/** Waits until every image of the page finished loading (or failed), then the sources of those that did not load. */
async function unloadedImages(page: Page): Promise<{ count: number; broken: string[] }> {
  await imagesSettled(page);
  return page.evaluate<{ count: number; broken: string[] }>(
    `({ count: document.images.length, broken: [...document.images].filter((i) => !(i.naturalWidth > 0)).map((i) => i.src) })`,
  );
}

await describeEachEngine('media proxy in Chromium: nothing loads from a third party', (ctx) => {
  let app: FastifyInstance;
  let base = '';
  let browser: Browser;
  let images: FeedServer;
  let pages: FeedServer;
  let token = '';
  let pageId = 0;
  let letterPageId = 0;
  let digestId = 0;
  let mail = '';

  before(async () => {
    if (skip !== undefined) return;
    const store = ctx.store();
    ({ app, baseUrl: base } = await listeningServer(store));
    images = await FeedServer.start(PAGE_TEST_HOST);
    for (const name of [...PICTURES, ...LETTER_PICTURES]) {
      images.route(`/${name}.png`, (_req, res) =>
        res.writeHead(200, { 'content-type': 'image/png' }).end(PNG),
      );
    }
    pages = await FeedServer.start(PAGE_TEST_HOST);
    const articleUrl = pages.route('/tides', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(article(images.origin));
    });
    const account = await newAccount(store);
    await setEmail(store, account.id, 'reader@example.org');
    await saveUrl(store, account.id, articleUrl, 'Tides, pictured');
    await queueFeedItem(store, account.id, {
      feedUrl: 'https://news.example/feed',
      feedTitle: 'News',
      url: 'https://news.example/1',
      title: 'A feed item with its own picture',
      imageUrl: images.url('/feed.png'),
    });
    const inbound = { store, log: silentLogger, baseUrl: base, inbound: TEST_INBOUND, queueLimit: 1000 };
    const to = await addressOfAccount(store, account.id);
    const taken = await ingestMessage(inbound, letter(to, images.origin), { recipients: [], via: 'http' });
    assert.equal(taken.outcome, 'stored');
    const stored = await store.db
      .selectFrom('newsletter_messages')
      .select('page_id')
      .where('account_id', '=', account.id)
      .executeTakeFirstOrThrow();
    letterPageId = stored.page_id ?? 0;
    const read = await enrichOnce(testReaderDeps(store), { accountId: account.id });
    assert.deepEqual([read.read, read.failed], [1, 0], 'the page was read');
    pageId = (await pageOf(store, account.id, articleUrl)).id;

    const mailer = new RecordingMailer();
    const deps: DigestDeps = {
      ...testDigestDeps(store, { mailer }),
      baseUrl: base,
      // As digestDeps makes it from the configuration (TIDINGS_MEDIA_PROXY on by default).
      media: new MediaSigner(store.db, () => ({ baseUrl: base, proxy: true })),
    };
    const built = await buildDigestNow(deps, account.id);
    assert.ok(built.status === 'built', built.status);
    digestId = built.digestId;
    await deliverDueDigests(deps);
    mail = mailer.sent.at(-1)?.html ?? '';
    assert.match(mail, /A feed item with its own picture/);
    assert.match(mail, /Harbour Letter: the new quay/);
    token = (await digestTokenOf(store.db, account.id)) ?? '';
    browser = await launchBrowser();
  });
  after(async () => {
    if (skip !== undefined) return;
    await closeBrowserAndServer(browser, app);
    await images.close();
    await pages.close();
  });

  /** Opens a page (by `open`), and answers every URL it requested. */
  async function requestsOf(open: (page: Page) => Promise<unknown>): Promise<{ urls: string[]; page: Page }> {
    const page = await browser.context.newPage();
    const urls: string[] = [];
    page.on('request', (request) => urls.push(request.url()));
    await open(page);
    return { urls, page };
  }

  /** Requests that left for anywhere but Tidings' own origin (inline data: and the blank page aside). */
  const elsewhere = (urls: readonly string[]): string[] =>
    urls.filter((u) => !u.startsWith(`${base}/`) && !u.startsWith('data:') && u !== 'about:blank');

  /** The images' server saw only the proxy: never Chromium, and never what cannot be proxied. */
  function assertOnlyTheProxyFetched(): void {
    for (const request of images.requests) {
      assert.match(String(request.headers['user-agent']), /Tidings\/.*media proxy/, request.path);
    }
    for (const name of ['srcset', 'source', 'bg', 'cell', 'div', 'pixel', 'nl-open', 'nl-hidden']) {
      assert.equal(images.requestsFor(`/${name}.png`).length, 0, `${name}.png was requested`);
    }
  }

  test("the digest's email: its thumbnails load, through the proxy only", { skip }, async () => {
    assert.match(mail, new RegExp(`<img src="${base.replace(/\./g, '\\.')}/media/`));
    const { urls, page } = await requestsOf((p) => p.setContent(mail));
    const { count, broken } = await unloadedImages(page);
    assert.equal(count, 2, 'the saved page’s lead image and the feed item’s picture');
    assert.deepEqual(broken, []);
    assert.deepEqual(elsewhere(urls), []);
    assert.ok(urls.some((u) => u.startsWith(`${base}/media/`)));
    assertOnlyTheProxyFetched();
    await page.close();
  });

  test("the digest's web page: its thumbnails load, through the proxy only", { skip }, async () => {
    const { urls, page } = await requestsOf((p) => p.goto(`${base}/digests/${digestId}?token=${token}`));
    const { count, broken } = await unloadedImages(page);
    assert.equal(count, 2);
    assert.deepEqual(broken, []);
    assert.deepEqual(elsewhere(urls), []);
    assertOnlyTheProxyFetched();
    await page.close();
  });

  test(
    'the reading view: the lead and inline images load through the proxy; nothing else is asked for',
    { skip },
    async () => {
      const violations: string[] = [];
      const { urls, page } = await requestsOf(async (p) => {
        p.on('console', (m) => {
          if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
        });
        await p.goto(`${base}/items/${pageId}?token=${token}`);
      });
      assert.match(await page.locator('h1').innerText(), /Tides, pictured/);
      const { count, broken } = await unloadedImages(page);
      assert.ok(count >= 2, `${count} images: the lead and the inline one at least`);
      assert.deepEqual(broken, []);
      assert.deepEqual(elsewhere(urls), []);
      assert.deepEqual(violations, [], 'nothing the page shows is blocked by its policy');
      assertOnlyTheProxyFetched();
      assert.ok(images.requestsFor('/lead.png').length >= 1 && images.requestsFor('/inline.png').length >= 1);
      await page.close();
    },
  );

  test(
    'the reading view of a newsletter: its photo through the proxy; no pixel, nothing else',
    { skip },
    async () => {
      const { urls, page } = await requestsOf((p) => p.goto(`${base}/items/${letterPageId}?token=${token}`));
      assert.match(await page.locator('h1').innerText(), /Harbour Letter: the new quay/);
      const { count, broken } = await unloadedImages(page);
      assert.equal(count, 1, 'the photo; the open pixel and the hidden image were dropped on arrival');
      assert.deepEqual(broken, []);
      assert.deepEqual(elsewhere(urls), []);
      assertOnlyTheProxyFetched();
      assert.ok(images.requestsFor('/nl-photo.png').length >= 1, 'the photo came through the proxy');
      await page.close();
    },
  );
});
