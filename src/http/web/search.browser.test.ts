/**
 * Search in a real browser (Debian's Chromium, headless): the box on the Queue page, found by its label,
 * submitted with Enter; the hits' marks; a phone-width page that does not scroll sideways.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import {
  type Browser,
  chromiumSkipReason,
  launchBrowser,
  listeningServer,
  sidewaysOverflows,
} from '../../test/browser.js';
import { saveUrl } from '../../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';

const skip = chromiumSkipReason();

await describeEachEngine('search in Chromium', (ctx) => {
  let app: FastifyInstance;
  let base = '';
  let browser: Browser;
  let page: Page;

  before(async () => {
    if (skip !== undefined) return;
    ({ app, baseUrl: base } = await listeningServer(ctx.store()));
    browser = await launchBrowser();
    page = await browser.context.newPage();
  });
  after(async () => {
    if (skip !== undefined) return;
    await browser.close();
    const closing = app.close();
    app.server.closeAllConnections();
    await closing;
  });

  test('find a link by a word of it from the Queue page, at desktop and phone width', { skip }, async () => {
    const account = await newAccount(ctx.store());
    await saveUrl(
      ctx.store(),
      account.id,
      'https://birds.example/kittiwake',
      'The kittiwake <nests> on cliffs',
    );
    await saveUrl(ctx.store(), account.id, 'https://birds.example/puffin', 'Puffins in spring');
    await page.goto(`${base}/queue`);
    await page.getByLabel('API key').fill(account.apiKey);
    await page.getByRole('button', { name: 'Sign in with key' }).click();
    await page.waitForURL(`${base}/queue`);

    const box = page.getByRole('searchbox', { name: 'Search your links' });
    await box.fill('Kittiwake');
    await box.press('Enter');
    await page.waitForURL(/\/search\?q=Kittiwake$/);
    assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Search');
    assert.match(await page.getByRole('status').innerText(), /^1 link found, 1–1 shown, best match first\.$/);
    const link = page.getByRole('link', { name: 'The kittiwake <nests> on cliffs' });
    assert.equal(await link.getAttribute('href'), 'https://birds.example/kittiwake');
    assert.deepEqual(await page.locator('mark').allInnerTexts(), ['kittiwake']);
    assert.equal(await page.getByRole('searchbox', { name: 'Search your links' }).inputValue(), 'Kittiwake');

    await page.setViewportSize({ width: 360, height: 740 });
    try {
      assert.deepEqual(
        await sidewaysOverflows(page, base, ['/search?q=kittiwake', '/search?q=-nothing', '/digests']),
        [],
      );
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    await page.goto(`${base}/search?q=${encodeURIComponent('-nothing')}`);
    assert.match(await page.getByRole('alert').innerText(), /Add a word to look for/);
  });
});
