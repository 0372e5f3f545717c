/**
 * Passkeys and passwords in a real browser (issue 13): Chromium's virtual authenticator (DevTools protocol,
 * WebAuthn domain) stands in for a phone's. Signed in with a key, the reader adds a passkey and sets a
 * password under Settings, Sign-in; signs out; signs in with the passkey on a phone-sized screen, without
 * typing anything; then with the password; a deleted passkey no longer signs in.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { CDPSession, Page } from 'playwright-core';
import { createAccountWithKey } from '../../accounts/service.js';
import { type Browser, chromiumSkipReason, launchBrowser, listeningServer } from '../../test/browser.js';
import { describeEachEngine } from '../../test/harness.js';

const skip = chromiumSkipReason();
const PASSWORD = 'a long and quiet password';

await describeEachEngine('passkeys and passwords in Chromium', (ctx) => {
  let app: FastifyInstance;
  let base = '';
  let browser: Browser;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId = '';
  const account = { name: '', email: '', apiKey: '' };
  const problems: string[] = [];
  /** What the browser posted when it signed in with the passkey (to replay it later). */
  let signedAssertion = '';

  before(async () => {
    if (skip !== undefined) return;
    // WebAuthn wants a domain name as the relying party's id: the base URL says localhost, not 127.0.0.1.
    ({ app, baseUrl: base } = await listeningServer(ctx.store(), { host: 'localhost' }));
    account.name = `phone reader ${ctx.engine}`;
    account.email = `phone.${ctx.engine}@example.org`;
    ({ apiKey: account.apiKey } = await createAccountWithKey(ctx.store(), {
      name: account.name,
      email: account.email,
    }));
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
      },
    }));
  });
  after(async () => {
    if (skip !== undefined) return;
    await browser.close();
    const closing = app.close();
    app.server.closeAllConnections();
    await closing;
  });

  const signOut = async (): Promise<void> => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in\?notice=signed_out$/);
  };

  test('add a passkey and set a password from Settings, signed in with a key', { skip }, async () => {
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('API key').fill(account.apiKey);
    await page.getByRole('button', { name: 'Sign in with key' }).click();
    await page.waitForURL(`${base}/queue`);

    await page.goto(`${base}/settings`);
    await page.getByRole('link', { name: 'Sign-in settings' }).click();
    await page.waitForURL(`${base}/settings/sign-in`);
    assert.equal(await page.getByText('You have no passkeys yet.').count(), 1);
    // With JavaScript, the passkey form shows and the note for browsers without it does not.
    assert.equal(await page.getByText('Adding a passkey needs a browser').isVisible(), false);
    await page.getByLabel('Name', { exact: true }).fill('test phone');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.waitForURL(/\/settings\/sign-in\?notice=passkey_added$/);
    await page.getByRole('status').getByText('Passkey added.').waitFor();
    const item = page.locator('ul.items li', { hasText: 'test phone' });
    assert.match(await item.innerText(), /never used/);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    assert.equal(credentials.length, 1);
    assert.equal(credentials[0]?.isResidentCredential, true, 'a discoverable credential');

    // Adding it again on the same authenticator is refused by the browser (the server excludes it).
    await page.getByLabel('Name', { exact: true }).fill('same phone');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await page.getByText('This device already holds a passkey for your account.').waitFor();

    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.waitForURL(/notice=password_set$/);
    assert.equal(await page.getByText('You have a password, set').count(), 1);
  });

  test('on a phone-sized screen, sign in with the passkey: nothing to type', { skip }, async () => {
    await signOut();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/keys`);
    await page.waitForURL(/\/sign-in\?next=%2Fkeys$/);
    const posted = page.waitForRequest((r) => r.url() === `${base}/sign-in/passkey` && r.method() === 'POST');
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    signedAssertion = new URLSearchParams((await posted).postData() ?? '').get('credential') ?? '';
    await page.waitForURL(`${base}/keys`);
    assert.equal(await page.getByText(account.name).count(), 1);
    await page.goto(`${base}/settings/sign-in`);
    const item = page.locator('ul.items li', { hasText: 'test phone' });
    assert.match(await item.innerText(), /this browser signed in with it/);
    assert.match(await item.innerText(), /last used just now/);
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  test(
    'a passkey answer replayed does not sign in, even with a fresh challenge waiting',
    { skip },
    async () => {
      await signOut();
      assert.match(signedAssertion, /"signature":"[A-Za-z0-9_-]+"/);
      const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
      const options = await page.request.post(`${base}/sign-in/passkey/options`, { form: { _csrf: csrf } });
      assert.equal(options.status(), 200);
      const replay = await page.request.post(`${base}/sign-in/passkey`, {
        form: { _csrf: csrf, credential: signedAssertion },
        maxRedirects: 0,
      });
      assert.equal(replay.status(), 401);
      assert.equal(
        (await page.context().cookies()).some((c) => c.name === 'tidings_session'),
        false,
      );
    },
  );

  test('sign in with the e-mail address and the password', { skip }, async () => {
    await page.goto(`${base}/sign-in`);
    await page.getByLabel('Email address or account name').fill(account.email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in with password' }).click();
    await page.waitForURL(`${base}/queue`);
    assert.equal(await page.getByText(account.name).count(), 1);
  });

  test('renamed, then deleted: the passkey no longer signs in', { skip }, async () => {
    await page.goto(`${base}/settings/sign-in`);
    await page.getByLabel('New name for test phone').fill('old phone');
    await page.getByRole('button', { name: 'Rename test phone' }).click();
    await page.waitForURL(/notice=passkey_renamed$/);
    await page.getByRole('button', { name: 'Delete old phone' }).click();
    await page.waitForURL(/notice=passkey_deleted$/);
    assert.equal(await page.getByText('You have no passkeys yet.').count(), 1);
    await signOut();
    await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
    await page.getByRole('alert').getByText('That passkey did not sign you in').waitFor();
    assert.equal(new URL(page.url()).pathname, '/sign-in/passkey');
    // Nothing the page did broke its Content-Security-Policy or threw.
    assert.deepEqual(
      problems.filter((p) => !/status of 401/.test(p)),
      [],
    );
  });
});
