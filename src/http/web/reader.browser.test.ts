/**
 * What was read, in a real browser (Debian's Chromium, headless, via playwright-core): the queue shows a
 * saved page by its real title with its thumbnail, and "Read" opens the reading view with the lead image
 * and the text, under the view's strict Content-Security-Policy (the images, served on loopback, load;
 * the stylesheet applies; nothing is blocked that the page needs). The browser saves the link with no
 * title through the queue page's form, and the real page reader reads the article from a loopback server.
 */
import assert from 'node:assert/strict';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { enrichOnce } from '../../articles/enrich.js';
import {
  type Browser,
  closeBrowserAndServer,
  chromiumSkipReason,
  launchBrowser,
  listeningServer,
  imagesSettled,
} from '../../test/browser.js';
import { useFeedServer } from '../../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { PAGE_TEST_HOST, pageOf, testReaderDeps } from '../../test/pageFixtures.js';

const skip = chromiumSkipReason();

/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** Images on loopback, counting requests per path. */
async function startImages(): Promise<{ server: Server; base: string; hits: Map<string, number> }> {
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    hits.set(req.url ?? '', (hits.get(req.url ?? '') ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' });
    res.end(PNG);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

/** Whether the first <img> matching `selector` loaded (evaluated in the page: no DOM types here). */
const loaded = async (page: Page, selector: string): Promise<boolean> =>
  (await page.evaluate(
    `(() => { const i = document.querySelector(${JSON.stringify(selector)}); return !!i && i.complete && i.naturalWidth > 0; })()`,
  )) === true;

/** Waits until every <img> matching `selector` finished loading (or failed). */
const settled = (page: Page, selector: string): Promise<void> => imagesSettled(page, selector);

/** The article a reader saves: its path carries tracking parameters, as a share button adds them. */
const ARTICLE_PATH = '/2026/tides?utm_source=rss';

/** The article's HTML, its lead image on the images server. */
const article = (images: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>The real title of the tides | News Example</title>
<meta property="og:title" content="The real title of the tides">
<meta property="og:site_name" content="News Example">
<meta property="og:description" content="Why the sea comes and goes.">
<meta name="author" content="A. Writer">
<meta property="og:image" content="${images}/lead.png">
<meta property="og:image:width" content="1200"><meta property="og:image:height" content="800">
<meta property="og:image:alt" content="A beach at low tide">
</head><body><nav><a href="/">Home</a></nav><article><h1>The real title of the tides</h1>
<p>The first paragraph of the article.</p>
<figure><img src="${images}/inline.png" alt="inline" width="600" height="400"></figure>
${'<p>The sea rises and falls twice a day, pulled by the moon and, a little, by the sun.</p>\n'.repeat(60)}
<p>The end.</p></article><footer>News Example</footer></body></html>`;

await describeEachEngine('reading view in Chromium', (ctx) => {
  const pages = useFeedServer(PAGE_TEST_HOST);
  let app: FastifyInstance;
  let base = '';
  let page: Page;
  let browser: Browser;
  let images: Awaited<ReturnType<typeof startImages>>;
  let pageId = 0;
  let accountId = 0;
  const violations: string[] = [];

  before(async () => {
    if (skip !== undefined) return;
    ({ app, baseUrl: base } = await listeningServer(ctx.store()));
    images = await startImages();
    const account = await newAccount(ctx.store());
    pages().route(ARTICLE_PATH, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(article(images.base));
    });
    accountId = account.id;
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('API key').fill(account.apiKey);
    await page.getByRole('button', { name: 'Sign in with key' }).click();
    await page.waitForURL(`${base}/queue`);
    // Saved in the browser, with no title: the queue shows the address until the page is read.
    await page.getByLabel('Address').fill(pages().url(ARTICLE_PATH));
    await page.getByRole('button', { name: 'Add to queue' }).click();
    await page.waitForURL(/\/queue\?notice=added/);
    assert.equal(await page.getByRole('link', { name: pages().url(ARTICLE_PATH), exact: true }).count(), 1);
    const read = await enrichOnce(testReaderDeps(ctx.store()), { accountId });
    assert.deepEqual([read.read, read.failed], [1, 0], 'the reader read the saved page');
    pageId = (await pageOf(ctx.store(), accountId, pages().url(ARTICLE_PATH))).id;
  });
  after(async () => {
    if (skip !== undefined) return;
    await closeBrowserAndServer(browser, app);
    images.server.closeAllConnections();
    await new Promise((resolve) => images.server.close(resolve));
  });

  test(
    'the queue shows the page’s real title, site, reading time and its thumbnail, loaded',
    { skip },
    async () => {
      await page.goto(`${base}/queue`);
      const title = page.getByRole('link', { name: 'The real title of the tides', exact: true });
      assert.equal(await title.getAttribute('href'), pages().url('/2026/tides'), 'the link is clean');
      assert.match(
        await page.locator('.items .meta').first().innerText(),
        /News Example · \d+ min read · saved/,
      );
      await settled(page, '.items .thumb img');
      assert.equal(await loaded(page, '.items .thumb img'), true);
      assert.equal(await page.locator('.items .thumb img').getAttribute('alt'), 'A beach at low tide');
      assert.ok((images.hits.get('/lead.png') ?? 0) >= 1);
    },
  );

  test(
    '"Read" opens the reading view: title, byline, lead image and text, the original one tap away',
    { skip },
    async () => {
      await page.getByRole('link', { name: 'Read The real title of the tides' }).click();
      await page.waitForURL(`${base}/items/${pageId}`);
      assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'The real title of the tides');
      assert.match(await page.locator('.byline').innerText(), /News Example · A\. Writer · \d+ min read/);
      const original = page.getByRole('link', { name: /Open the original on News Example/ });
      assert.equal(await original.getAttribute('href'), pages().url('/2026/tides'));
      await settled(page, '.reader img');
      assert.equal(await loaded(page, '.reader .lead img'), true);
      assert.equal(await loaded(page, '.reader .text img'), true);
      assert.match(await page.locator('.reader .text').innerText(), /The first paragraph of the article\./);
      // The stylesheet applies under style-src 'self': the reading column is narrowed.
      const width = await page.evaluate(`getComputedStyle(document.querySelector('.reader')).maxWidth`);
      assert.equal(width, '640px');
      assert.deepEqual(violations, [], 'nothing the page needs is blocked');
    },
  );
});
