/**
 * The installable app in a real browser (Debian's Chromium, headless): Chromium reads and accepts the
 * manifest (CDP Page.getAppManifest reports no errors), and a share as Android delivers it — a navigation
 * to the share target's URL with the shared title, text and url — lands in the queue after one tap,
 * through the sign-in page when there is no session yet. Also the unsubscribe page's buttons.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { savedUrls } from '../../queue/reads.js';
import { mintUnsubscribeToken } from '../../digest/unsubscribe.js';
import { accountById } from '../../store/accounts.js';
import {
  type Browser,
  chromiumSkipReason,
  closeBrowserAndServer,
  launchBrowser,
  listeningServer,
} from '../../test/browser.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';

const skip = chromiumSkipReason();

/** The URL Android opens for a GET share target (manifest.ts): the action with the shared fields. */
const shareUrl = (base: string, fields: Record<string, string>): string =>
  `${base}/share?${new URLSearchParams(fields).toString()}`;

await describeEachEngine('installable app and share target in Chromium', (ctx) => {
  let app: FastifyInstance;
  let base = '';
  let account: Awaited<ReturnType<typeof newAccount>>;
  let page: Page;
  let browser: Browser;

  before(async () => {
    if (skip !== undefined) return;
    ({ app, baseUrl: base } = await listeningServer(ctx.store()));
    account = await newAccount(ctx.store());
    browser = await launchBrowser();
    page = await browser.context.newPage();
  });
  after(async () => {
    if (skip !== undefined) return;
    await closeBrowserAndServer(browser, app);
  });

  test('Chromium finds the manifest from the page and parses it without errors', { skip }, async () => {
    await page.goto(`${base}/sign-in`);
    const cdp = await browser.context.newCDPSession(page);
    const manifest = await cdp.send('Page.getAppManifest');
    assert.equal(manifest.url, `${base}/manifest.webmanifest`);
    assert.deepEqual(manifest.errors, []);
    const data = JSON.parse(manifest.data ?? '') as { share_target?: { action?: string; params?: unknown } };
    assert.equal(data.share_target?.action, '/share');
    assert.deepEqual(data.share_target.params, { title: 'title', text: 'text', url: 'url' });
    // What Chromium made of it: the share target, the icons and the display mode as it will use them.
    const parsed = manifest.manifest;
    assert.match(parsed.display ?? '', /^k?standalone$/i);
    assert.equal(parsed.startUrl, `${base}/queue`);
    // (CDP does not report the share target's params; the manifest's own JSON above has them.)
    const target = parsed.shareTarget;
    assert.ok(target !== undefined, 'Chromium read the share target');
    assert.equal(target.action, `${base}/share`);
    assert.match(target.method, /^k?get$/i);
    assert.ok(
      (parsed.icons ?? []).some((i) => i.sizes === '512x512'),
      JSON.stringify(parsed.icons),
    );
    // Installable as it is: no service worker needed, icons of the right size fetched and decoded.
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    assert.deepEqual(installabilityErrors, []);
    await cdp.detach();
  });

  test('a share with no session: sign in, come back, confirm, and it is in the queue', { skip }, async () => {
    await page.goto(
      shareUrl(base, {
        title: 'Shared from Android',
        text: 'Worth reading https://share.example/android',
        url: '',
      }),
    );
    assert.equal(new URL(page.url()).pathname, '/sign-in');
    await page.getByLabel('API key').fill(account.apiKey);
    await page.getByRole('button', { name: 'Sign in with key' }).click();
    await page.waitForURL((u) => u.pathname === '/share');
    assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Save a shared link');
    assert.equal(await page.getByLabel('Address').inputValue(), 'https://share.example/android');
    assert.equal(await page.getByLabel('Title (optional)').inputValue(), 'Shared from Android');
    assert.deepEqual(await savedUrls(ctx.store(), account.id), [], 'nothing saved before the tap');
    await page.getByRole('button', { name: 'Add to queue' }).click();
    await page.waitForURL(/\/queue\?notice=added/);
    const link = page.getByRole('link', { name: 'Shared from Android' });
    assert.equal(await link.getAttribute('href'), 'https://share.example/android');
  });

  test('signed in, a share with the address in url goes straight to the form', { skip }, async () => {
    await page.goto(shareUrl(base, { title: 'Second share', text: '', url: 'https://share.example/second' }));
    assert.equal(new URL(page.url()).pathname, '/share');
    await page.getByRole('button', { name: 'Add to queue' }).click();
    await page.waitForURL(/\/queue\?notice=added/);
    assert.ok(
      (await savedUrls(ctx.store(), account.id)).some((i) => i.url === 'https://share.example/second'),
    );
  });

  test('a share without an address says so, and the reader can paste one', { skip }, async () => {
    await page.goto(shareUrl(base, { title: 'Only words', text: 'nothing to link' }));
    assert.match(await page.getByRole('alert').innerText(), /What was shared has no web address/);
    await page.getByLabel('Address').fill('https://share.example/pasted');
    await page.getByRole('button', { name: 'Add to queue' }).click();
    await page.waitForURL(/\/queue\?notice=added/);
  });

  test(
    'the unsubscribe page works in a browser with no session: unsubscribe, pause, resume',
    { skip },
    async () => {
      const token = await mintUnsubscribeToken(ctx.store().db, account.id, new Date());
      assert.ok(token !== null);
      // No session: the link works on its own, as from a mail app.
      await browser.context.clearCookies();
      const other = await browser.context.newPage();
      await other.goto(`${base}/unsubscribe/${token}`);
      assert.match(await other.locator('main').innerText(), /Your Tidings digest emails are on/);
      await other.getByRole('button', { name: 'Unsubscribe' }).click();
      assert.equal(await other.getByRole('status').innerText(), 'Done: you are unsubscribed.');
      assert.equal((await accountById(ctx.store().db, account.id))?.email_enabled, false);
      await other.getByRole('button', { name: 'Pause for a week' }).click();
      assert.match(await other.locator('main').innerText(), /paused until/);
      await other.getByRole('button', { name: 'Resume emails' }).click();
      assert.match(await other.locator('main').innerText(), /emails are on/);
      assert.equal((await accountById(ctx.store().db, account.id))?.email_enabled, true);
      await other.close();
    },
  );
});
