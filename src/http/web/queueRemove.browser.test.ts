/**
 * The queue on a phone and Remove's undo (issue 25), in Chromium: at 390 px a queued item's thumbnail
 * comes before its Remove button (above it), at desktop width beside the text and before the button; and
 * "Remove" says "Removed <title>. Undo", whose button (a plain form POST with the session's token: no
 * script) puts the link back with its address and title.
 */
import assert from 'node:assert/strict';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import {
  type Browser,
  chromiumSkipReason,
  closeBrowserAndServer,
  launchBrowser,
  listeningServer,
  imagesSettled,
} from '../../test/browser.js';
import { saveUrl } from '../../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';

const skip = chromiumSkipReason();

/** A 1×1 PNG, drawn in the thumbnail's 96 × 72 box. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

const TITLE = 'Tide tables for May';
const URL_SAVED = 'https://undo.example/tides?month=5';

await describeEachEngine('the queue on a phone, and Remove’s undo, in Chromium', (ctx) => {
  let app: FastifyInstance;
  let base = '';
  let browser: Browser;
  let page: Page;
  let images: Server;
  let apiKey = '';

  const queue = async (): Promise<{ url: string; title: string }[]> =>
    (await (await fetch(`${base}/api/v1/articles?apiKey=${apiKey}`)).json()) as {
      url: string;
      title: string;
    }[];

  const boxes = async () => {
    await imagesSettled(page, '.items .thumb img');
    const thumb = await page.locator('.items li .thumb').first().boundingBox();
    const remove = await page.getByRole('button', { name: `Remove ${TITLE}` }).boundingBox();
    assert.ok(thumb !== null && remove !== null, 'both are shown');
    assert.ok(
      thumb.width >= 60 && thumb.height >= 40,
      `the thumbnail has its size: ${JSON.stringify(thumb)}`,
    );
    return { thumb, remove };
  };

  before(async () => {
    if (skip !== undefined) return;
    images = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(PNG));
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    ({ app, baseUrl: base } = await listeningServer(ctx.store()));
    const account = await newAccount(ctx.store());
    apiKey = account.apiKey;
    await saveUrl(ctx.store(), account.id, URL_SAVED, TITLE);
    const image = `http://127.0.0.1:${(images.address() as AddressInfo).port}/thumb.png`;
    await ctx
      .store()
      .db.updateTable('queue_items')
      .set({ image_url: image })
      .where('url', '=', URL_SAVED)
      .execute();
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in with key' }).click();
    await page.waitForURL(`${base}/queue`);
  });
  after(async () => {
    if (skip !== undefined) return;
    await closeBrowserAndServer(browser, app);
    images.closeAllConnections();
    await new Promise((resolve) => images.close(resolve));
  });

  test('at 390 px the thumbnail comes before (above) the Remove button', { skip }, async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(`${base}/queue`);
      const { thumb, remove } = await boxes();
      assert.ok(
        thumb.y + thumb.height <= remove.y,
        `thumbnail ${JSON.stringify(thumb)} above Remove ${JSON.stringify(remove)}`,
      );
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  test(
    'at desktop width the thumbnail sits beside the text, before the Remove button',
    { skip },
    async () => {
      await page.goto(`${base}/queue`);
      const { thumb, remove } = await boxes();
      assert.ok(
        thumb.x + thumb.width <= remove.x,
        `thumbnail ${JSON.stringify(thumb)} left of Remove ${JSON.stringify(remove)}`,
      );
      assert.ok(remove.y < thumb.y + thumb.height, 'on the same row');
    },
  );

  test('Remove offers Undo, which puts the link back with its address and title', { skip }, async () => {
    await page.goto(`${base}/queue`);
    await page.getByRole('button', { name: `Remove ${TITLE}` }).click();
    await page.waitForURL(/notice=removed/);
    assert.deepEqual(await queue(), []);
    const status = page.getByRole('status');
    assert.equal((await status.innerText()).replace(/\s+/g, ' ').trim(), `Removed ${TITLE}. Undo`);
    await status.getByRole('button', { name: 'Undo' }).click();
    await page.waitForURL(/notice=restored/);
    assert.match(await page.getByRole('status').innerText(), /Put back in your queue\./);
    assert.deepEqual(await queue(), [{ url: URL_SAVED, title: TITLE }]);
    assert.equal(await page.getByRole('link', { name: TITLE, exact: true }).count(), 1);
  });
});
