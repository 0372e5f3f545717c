import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { type BrowserContext, type Page, chromium } from 'playwright-core';
import { buildServer } from '../http/server.js';
import type { Store } from '../store/db.js';
import { silentLogger } from './harness.js';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it when missing). */
export const CHROMIUM = process.env.TIDINGS_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Undefined when the browser tests can run, else why not. With CI=true a missing Chromium is an error,
 * never a skip.
 */
export function chromiumSkipReason(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const reason = `no Chromium at ${CHROMIUM} (apt-get install chromium, or set TIDINGS_CHROMIUM)`;
  if (process.env.CI === 'true') throw new Error(`${reason}; CI=true requires it`);
  return reason;
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A headless Chromium with a fresh profile, removed on close. */
export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'tidings-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * The whole server listening on a loopback port, its base URL set to where it listens. `host` is the base
 * URL's host (127.0.0.1 by default; passkeys need a domain name, so their tests use localhost).
 */
export async function listeningServer(
  store: Store,
  options: { queueLimit?: number; host?: 'localhost' | '127.0.0.1' } = {},
): Promise<{ app: FastifyInstance; baseUrl: string }> {
  const config = {
    trustProxy: false,
    queueLimit: options.queueLimit ?? 10_000,
    baseUrl: '',
    allowPrivateNetworks: true, // the tests' feeds are served on loopback
  };
  const app = buildServer({ config, store, logger: silentLogger });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  config.baseUrl = `http://${options.host ?? '127.0.0.1'}:${port}`;
  return { app, baseUrl: config.baseUrl };
}

/**
 * Closes the browser, then the server: Chromium may leave connections open (or opened ahead) that
 * Fastify's close would wait for, so they are closed with it.
 */
export async function closeBrowserAndServer(browser: Browser, app: FastifyInstance): Promise<void> {
  await browser.close();
  const closing = app.close();
  app.server.closeAllConnections();
  await closing;
}

/** The paths (on `base`) that scroll sideways at the page's current width, with by how many pixels. */
export async function sidewaysOverflows(
  page: Page,
  base: string,
  paths: readonly string[],
): Promise<string[]> {
  const found: string[] = [];
  for (const path of paths) {
    await page.goto(`${base}${path}`);
    const overflow = await page.evaluate<number>(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    if (overflow > 0) found.push(`${path} overflows by ${overflow} px`);
  }
  return found;
}

/**
 * Waits until every image matching `selector` has loaded or failed. Not `page.waitForFunction`: after its
 * first try it evaluates the predicate inside the page, which the pages' Content-Security-Policy (no
 * 'unsafe-eval') refuses, so it failed whenever an image was still loading at the first try.
 */
export async function imagesSettled(page: Page, selector = 'img'): Promise<void> {
  await page.evaluate(
    `Promise.all([...document.querySelectorAll(${JSON.stringify(selector)})].map((i) => i.complete ? null : new Promise((done) => { i.addEventListener('load', done, { once: true }); i.addEventListener('error', done, { once: true }); })))`,
  );
}
