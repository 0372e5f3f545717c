/**
 * What was read, in a real browser (Debian's Chromium, headless, via playwright-core): the queue shows a
 * saved page by its real title with its thumbnail, and "Read" opens the reading view with the lead image
 * and the text, under the view's strict Content-Security-Policy (the images, served on loopback, load;
 * the stylesheet applies; nothing is blocked that the page needs). The reader pipeline is not needed: the
 * page row is inserted as it would leave one.
 */
import assert from 'node:assert/strict';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { saveUrl } from '../../test/digestPipeline.js';
import { type Browser, chromiumSkipReason, launchBrowser, listeningServer } from '../../test/browser.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { insertPage, linkQueuedPage } from '../../test/pages.js';

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
const settled = (page: Page, selector: string): Promise<unknown> =>
  page.waitForFunction(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].every((i) => i.complete)`,
  );

await describeEachEngine('reading view in Chromium', (ctx) => {
  let app: FastifyInstance;
  let base = '';
  let page: Page;
  let browser: Browser;
  let images: Awaited<ReturnType<typeof startImages>>;
  let pageId = 0;
  const violations: string[] = [];

  before(async () => {
    if (skip !== undefined) return;
    ({ app, baseUrl: base } = await listeningServer(ctx.store()));
    images = await startImages();
    const account = await newAccount(ctx.store());
    const url = 'https://news.example/2026/tides?utm_source=rss';
    await saveUrl(ctx.store(), account.id, url);
    pageId = await insertPage(ctx.store(), {
      url: 'https://news.example/2026/tides',
      title: 'The real title of the tides',
      description: 'Why the sea comes and goes.',
      site_name: 'News Example',
      author: 'A. Writer',
      language: 'en',
      image_url: `${images.base}/lead.png`,
      image_width: 1200,
      image_height: 800,
      image_alt: 'A beach at low tide',
      html: `<p>The first paragraph of the article.</p><figure><img src="${images.base}/inline.png" alt="inline"></figure><p>The end.</p>`,
      word_count: 900,
      reading_minutes: 4,
    });
    await linkQueuedPage(ctx.store(), account.id, url, pageId);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('API key').fill(account.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/queue`);
  });
  after(async () => {
    if (skip !== undefined) return;
    await browser.close();
    const closing = app.close();
    app.server.closeAllConnections();
    await closing;
    images.server.closeAllConnections();
    await new Promise((resolve) => images.server.close(resolve));
  });

  test(
    'the queue shows the page’s real title, site, reading time and its thumbnail, loaded',
    { skip },
    async () => {
      await page.goto(`${base}/queue`);
      const title = page.getByRole('link', { name: 'The real title of the tides', exact: true });
      assert.equal(await title.getAttribute('href'), 'https://news.example/2026/tides', 'the link is clean');
      assert.match(
        await page.locator('.items .meta').first().innerText(),
        /News Example · 4 min read · saved/,
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
      assert.match(await page.locator('.byline').innerText(), /News Example · A\. Writer · 4 min read/);
      const original = page.getByRole('link', { name: /Open the original on News Example/ });
      assert.equal(await original.getAttribute('href'), 'https://news.example/2026/tides');
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
