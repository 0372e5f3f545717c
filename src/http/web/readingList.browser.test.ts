/**
 * The reading list in Chromium (issue 27): a reader uploads a Pocket export through the page's form (a
 * plain multipart POST: no script), sees the counts and the list, filters it by a tag by clicking the
 * tag, and archives an item, coming back to the same filtered list.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { readingListCounts } from '../../store/readingList.js';
import {
  type Browser,
  chromiumSkipReason,
  closeBrowserAndServer,
  launchBrowser,
  listeningServer,
  sidewaysOverflows,
} from '../../test/browser.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';

const skip = chromiumSkipReason();

const CSV = `title,url,time_added,tags,status
Why petrels fly,https://birds.example/petrels,1609459200,birds|sea,unread
Gulls at dawn,https://birds.example/gulls,1609459300,birds,unread
Bread at home,https://bread.example/,1609459400,baking,unread
Old news,https://news.example/old,1500000000,,archive
A title with a very long address,https://long.example/${'x'.repeat(300)},1400000000,${'averyveryverylongtagwithoutanyspaces'.repeat(2)},archive
`;

await describeEachEngine('the reading list in Chromium', (ctx) => {
  let app: FastifyInstance;
  let base = '';
  let browser: Browser;
  let page: Page;
  let accountId = 0;

  before(async () => {
    if (skip !== undefined) return;
    ({ app, baseUrl: base } = await listeningServer(ctx.store()));
    const account = await newAccount(ctx.store());
    accountId = account.id;
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('API key').fill(account.apiKey);
    await page.getByRole('button', { name: 'Sign in with key' }).click();
    await page.waitForURL(`${base}/queue`);
  });
  after(async () => {
    if (skip !== undefined) return;
    await closeBrowserAndServer(browser, app);
  });

  test('upload an export, see the list, filter by a tag, archive an item', { skip }, async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reading list' }).click();
    await page.waitForURL(`${base}/reading-list`);
    assert.match(await page.locator('main').innerText(), /Your reading list is empty\./);

    await page.getByLabel('Export file').setInputFiles({
      name: 'pocket.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(CSV),
    });
    await page.getByLabel('Format').selectOption('pocket');
    await page.getByRole('button', { name: 'Import' }).click();
    await page.waitForURL(`${base}/reading-list/import`);
    const result = page.locator('#import-result');
    assert.match(
      (await result.innerText()).replace(/\s+/g, ' '),
      /Imported 5 links from a pocket export of 5 rows into the reading list: 0 already there \(merged\), 0 duplicates within the file, 0 bad rows skipped\./,
    );
    const titles = () => page.locator('ol.items .title').allInnerTexts();
    // Unread, newest saved first.
    assert.deepEqual(await titles(), ['Bread at home', 'Gulls at dawn', 'Why petrels fly']);

    await page.getByRole('navigation', { name: 'Tags' }).getByRole('link', { name: '#birds (2)' }).click();
    await page.waitForURL(`${base}/reading-list?tag=birds`);
    assert.deepEqual(await titles(), ['Gulls at dawn', 'Why petrels fly']);

    await page.getByRole('button', { name: 'Archive Gulls at dawn' }).click();
    await page.waitForURL(`${base}/reading-list?tag=birds&notice=archived`);
    assert.equal(await page.getByRole('status').innerText(), 'Archived.');
    assert.deepEqual(await titles(), ['Why petrels fly']);
    assert.deepEqual(await readingListCounts(ctx.store().db, accountId), { unread: 2, archived: 3 });

    await page.getByRole('navigation', { name: 'Show' }).getByRole('link', { name: 'Archived (3)' }).click();
    await page.waitForURL(`${base}/reading-list?state=archived&tag=birds`);
    assert.deepEqual(await titles(), ['Gulls at dawn']);
    await page.getByRole('button', { name: 'Unarchive Gulls at dawn' }).click();
    await page.waitForURL(`${base}/reading-list?state=archived&tag=birds&notice=unarchived`);
    assert.match(await page.locator('main').innerText(), /No archived items tagged birds\./);
  });

  test('at phone width the list does not scroll sideways', { skip }, async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    try {
      assert.deepEqual(await sidewaysOverflows(page, base, ['/reading-list', '/reading-list?state=all']), []);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });
});
