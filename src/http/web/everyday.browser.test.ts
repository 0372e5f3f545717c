/**
 * Issue 13 in a real browser (Debian's Chromium, headless): a refused filter comes back with its feed's
 * section open, the typed value kept and the error beside the field, which is highlighted (bugs 3 and 7).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { importSubscriptions } from '../../accounts/opml.js';
import { subscriptionsByAccount } from '../../store/subscriptions.js';
import {
  type Browser,
  closeBrowserAndServer,
  chromiumSkipReason,
  launchBrowser,
  listeningServer,
} from '../../test/browser.js';
import { testRefreshDeps } from '../../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';

const skip = chromiumSkipReason();

await describeEachEngine('issue 13 in Chromium', (ctx) => {
  let app: FastifyInstance;
  let base = '';
  let browser: Browser;
  let page: Page;
  let feedId = 0;

  before(async () => {
    if (skip !== undefined) return;
    ({ app, baseUrl: base } = await listeningServer(ctx.store()));
    const account = await newAccount(ctx.store());
    await importSubscriptions(testRefreshDeps(ctx.store()), account.id, [
      { url: 'https://filters.example/feed', title: 'Filtered', htmlUrl: null, folder: null },
    ]);
    feedId = (await subscriptionsByAccount(ctx.store().db, account.id))[0]?.id ?? 0;
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

  test(
    'a refused filter: the section stays open, the value kept, the error beside it, the field highlighted',
    { skip },
    async () => {
      await page.goto(`${base}/feeds`);
      await page.getByText('Change “Filtered”').click();
      const include = page.locator(`#include-${feedId}`);
      await include.fill('/(?<=foo)bar/');
      await page.getByRole('button', { name: 'Save filters' }).click();
      await page.waitForURL(`${base}/feeds/${feedId}/filters#feed-${feedId}`);

      const open = await page
        .locator(`#feed-${feedId} details`)
        .evaluate((d) => (d as HTMLDetailsElement).open);
      assert.equal(open, true, 'the feed’s section is open');
      assert.equal(await include.inputValue(), '/(?<=foo)bar/');
      assert.equal(await include.getAttribute('aria-invalid'), 'true');
      const description = await include.evaluate((el) =>
        (el.getAttribute('aria-describedby') ?? '')
          .split(' ')
          .map((id) => document.getElementById(id)?.textContent ?? '')
          .join(' '),
      );
      assert.match(description, /look-behind such as \(\?<=…\) or \(\?<!…\) is not supported/);
      assert.ok(await include.isVisible(), 'the field is shown, not folded away');

      // Highlighted by more than colour: a 2 px border and an outline, against a 1 px border elsewhere.
      const style = (selector: string) =>
        page.locator(selector).evaluate((el) => {
          const s = getComputedStyle(el);
          return { border: s.borderTopWidth, outline: s.outlineStyle, colour: s.borderTopColor };
        });
      const refused = await style(`#include-${feedId}`);
      const plain = await style(`#exclude-${feedId}`);
      assert.equal(refused.border, '2px');
      assert.equal(refused.outline, 'dashed');
      assert.equal(plain.border, '1px');
      assert.notEqual(refused.colour, plain.colour);
    },
  );
});
