/**
 * The sign-in page in Chromium leads with what can work at its address (issue 25, the newcomer's list):
 * passkeys need a secure context (https, or localhost) and a domain name. At http://localhost the passkey
 * comes first; at an IP address or a name over plain http the password comes first and the page says why
 * passkeys are not offered; a page whose base URL allows passkeys but that is opened over plain http
 * elsewhere keeps its passkey box hidden. `tidings.test` is mapped to 127.0.0.1 by Chromium's resolver.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type Browser, type Page, chromium } from 'playwright-core';
import { CHROMIUM, chromiumSkipReason } from '../../test/browser.js';
import { describeEachEngine, silentLogger } from '../../test/harness.js';
import type { Store } from '../../store/db.js';
import { buildServer } from '../server.js';

const skip = chromiumSkipReason();

/** A server listening on loopback whose base URL is `http://<host>:<its port>`. */
async function serverAt(store: Store, host: string): Promise<{ app: FastifyInstance; port: number }> {
  const config = { trustProxy: false, queueLimit: 10_000, baseUrl: '' };
  const app = buildServer({ config, store, logger: silentLogger });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  config.baseUrl = `http://${host}:${port}`;
  return { app, port };
}

/** What a reader sees of the page: the visible section headings in order, and the visible notes. */
async function seen(page: Page, url: string): Promise<{ headings: string[]; secure: boolean; text: string }> {
  await page.goto(url);
  await page.waitForLoadState('load');
  return page.evaluate<{ headings: string[]; secure: boolean; text: string }>(`({
    headings: [...document.querySelectorAll('h2')]
      .filter((h) => h.offsetParent !== null)
      .map((h) => h.textContent),
    secure: window.isSecureContext,
    text: document.body.innerText,
  })`);
}

await describeEachEngine('the sign-in page in Chromium leads with what works here', (ctx) => {
  let browser: Browser;
  let page: Page;
  const apps: FastifyInstance[] = [];
  const problems: string[] = [];

  before(async () => {
    if (skip !== undefined) return;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--host-resolver-rules=MAP tidings.test 127.0.0.1'],
    });
    page = await browser.newPage();
    page.on('pageerror', (e) => problems.push(e.message));
  });
  after(async () => {
    if (skip !== undefined) return;
    await browser.close();
    for (const app of apps) {
      const closing = app.close();
      app.server.closeAllConnections();
      await closing;
    }
  });

  const open = async (host: string): Promise<number> => {
    const { app, port } = await serverAt(ctx.store(), host);
    apps.push(app);
    return port;
  };

  test('at http://localhost: the passkey first', { skip }, async () => {
    const port = await open('localhost');
    const { headings, secure } = await seen(page, `http://localhost:${port}/sign-in`);
    assert.equal(secure, true);
    assert.deepEqual(headings, ['With a passkey', 'With your password', 'With an API key']);
    assert.ok(await page.getByRole('button', { name: 'Sign in with a passkey' }).isVisible());
  });

  test('at http://127.0.0.1 (an IP address): the password first, and why no passkeys', { skip }, async () => {
    const port = await open('127.0.0.1');
    const { headings, text } = await seen(page, `http://127.0.0.1:${port}/sign-in`);
    assert.deepEqual(headings, ['With your password', 'With an API key', 'Passkeys']);
    assert.match(text, /Passkeys cannot be used here: a browser offers them only at an address with a name/);
    assert.equal(await page.getByRole('button', { name: 'Sign in with a passkey' }).count(), 0);
  });

  test(
    'at http://tidings.test (plain http, not loopback): the password first, and why',
    { skip },
    async () => {
      const port = await open('tidings.test');
      const { headings, secure, text } = await seen(page, `http://tidings.test:${port}/sign-in`);
      assert.equal(secure, false);
      assert.deepEqual(headings, ['With your password', 'With an API key', 'Passkeys']);
      assert.match(
        text,
        /only over https \(or on localhost\), and Tidings is at http:\/\/tidings\.test:\d+, plain/,
      );
      // The password form works there.
      await page.getByLabel('Email address or account name').fill('nobody@example.org');
      await page.getByLabel('Password').fill('not a password at all');
      await page.getByRole('button', { name: 'Sign in with password' }).click();
      await page.waitForLoadState('load');
      assert.match(await page.innerText('body'), /do not match/);
    },
  );

  test(
    'a page that offers passkeys, opened over plain http elsewhere: its passkey box stays hidden',
    { skip },
    async () => {
      const port = await open('localhost');
      const { headings, secure } = await seen(page, `http://tidings.test:${port}/sign-in`);
      assert.equal(secure, false);
      assert.deepEqual(headings, ['With your password', 'With an API key']);
      assert.deepEqual(problems, []);
    },
  );
});
