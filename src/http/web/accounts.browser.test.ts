/**
 * Accounts on the web in a real browser (Debian's Chromium, headless, playwright-core): the administrator
 * makes an invitation link; a second browser, at phone width, opens it, names the account, lands signed in
 * with its key shown once, sees its queue, and finally deletes the account again.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { type Browser, chromiumSkipReason, launchBrowser, listeningServer } from '../../test/browser.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';

const skip = chromiumSkipReason();

await describeEachEngine('accounts and invitations in Chromium', (ctx) => {
  let app: FastifyInstance;
  let base = '';
  let admin: { id: number; apiKey: string };
  let adminBrowser: Browser;
  let phoneBrowser: Browser;
  let adminPage: Page;
  let phone: Page;
  let link = '';

  const overflow = (page: Page): Promise<number> =>
    page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');

  before(async () => {
    if (skip !== undefined) return;
    ({ app, baseUrl: base } = await listeningServer(ctx.store()));
    admin = await newAccount(ctx.store()); // the first account: an administrator
    adminBrowser = await launchBrowser();
    phoneBrowser = await launchBrowser();
    adminPage = await adminBrowser.context.newPage();
    phone = await phoneBrowser.context.newPage();
    await phone.setViewportSize({ width: 360, height: 740 });
  });
  after(async () => {
    if (skip !== undefined) return;
    await adminBrowser.close();
    await phoneBrowser.close();
    const closing = app.close();
    app.server.closeAllConnections();
    await closing;
  });

  test('the administrator makes an invitation link on the Accounts page', { skip }, async () => {
    await adminPage.goto(`${base}/sign-in`);
    await adminPage.getByLabel('API key').fill(admin.apiKey);
    await adminPage.getByRole('button', { name: 'Sign in with key' }).click();
    await adminPage.waitForURL(`${base}/queue`);
    await adminPage.getByRole('link', { name: 'Accounts' }).click();
    assert.equal(await adminPage.getByRole('heading', { level: 1 }).innerText(), 'Accounts');
    await adminPage.getByLabel('Who it is for (optional)').fill('Erin');
    await adminPage.getByLabel('The link works for').selectOption('1');
    await adminPage.getByRole('button', { name: 'Create invitation link' }).click();
    link = await adminPage.getByLabel('Link', { exact: true }).inputValue();
    assert.match(link, new RegExp(`^${base}/invite/[A-Za-z0-9_-]{43}$`));
    await adminPage.goto(`${base}/accounts`);
    assert.equal(await adminPage.getByLabel('Link', { exact: true }).count(), 0, 'the link is shown once');
    assert.equal(await adminPage.getByRole('button', { name: 'Withdraw invitation: Erin' }).count(), 1);
  });

  test(
    'on a phone, the invited person opens it, names the account and lands signed in',
    { skip },
    async () => {
      await phone.goto(link);
      assert.equal(await phone.getByRole('heading', { level: 1 }).innerText(), 'Join Tidings');
      assert.ok((await overflow(phone)) <= 0, 'the form fits a phone');
      await phone.getByLabel('Your name').fill('Erin');
      await phone.getByLabel('Time zone').fill('Europe/Madrid');
      await phone.getByRole('button', { name: 'Create my account' }).click();
      assert.equal(await phone.getByRole('heading', { level: 1 }).innerText(), 'Welcome, Erin');
      const key = await phone.getByLabel('Key', { exact: true }).inputValue();
      assert.match(key, /^tdg_[0-9a-f]{76}$/);
      const api = await fetch(`${base}/api/v1/articles?apiKey=${key}`);
      assert.equal(api.status, 200);

      await phone.getByRole('link', { name: 'Go to your queue' }).click();
      await phone.waitForURL(`${base}/queue`);
      assert.equal(await phone.getByRole('heading', { level: 1 }).innerText(), 'Queue');
      assert.equal(await phone.getByRole('link', { name: 'Accounts' }).count(), 0);
      const cookie = (await phone.context().cookies(base)).find((c) => c.name === 'tidings_session');
      assert.equal(cookie?.httpOnly, true);

      await phone.goto(link);
      assert.match(await phone.locator('main').innerText(), /used already/);
      await adminPage.goto(`${base}/accounts`);
      assert.match(await adminPage.locator('.items').first().innerText(), /Erin/);
      assert.ok((await overflow(phone)) <= 0);
    },
  );

  test('at phone width the Accounts and account pages do not scroll sideways', { skip }, async () => {
    await adminPage.setViewportSize({ width: 360, height: 740 });
    try {
      for (const path of ['/accounts', '/settings/account']) {
        await adminPage.goto(`${base}${path}`);
        assert.ok((await overflow(adminPage)) <= 0, path);
      }
    } finally {
      await adminPage.setViewportSize({ width: 1280, height: 900 });
    }
  });

  test('the invited person deletes the account and lands on the sign-in page', { skip }, async () => {
    await phone.goto(`${base}/settings`);
    await phone.getByRole('link', { name: 'Change your name, or delete your account' }).click();
    await phone.getByLabel('To confirm, type the name of your account: Erin').fill('Erin');
    await phone.getByRole('button', { name: 'Delete my account and everything in it' }).click();
    await phone.waitForURL(/\/sign-in\?notice=deleted/);
    assert.equal(
      await phone.getByRole('status').innerText(),
      'Your account is deleted, with everything in it.',
    );
    await adminPage.goto(`${base}/accounts`);
    assert.ok(!(await adminPage.locator('.items').first().innerText()).includes('Erin'));
  });
});
