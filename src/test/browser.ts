import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { type BrowserContext, chromium } from 'playwright-core';
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

/** The whole server listening on a loopback port, its base URL set to where it listens. */
export async function listeningServer(
  store: Store,
  options: { queueLimit?: number } = {},
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
  config.baseUrl = `http://127.0.0.1:${port}`;
  return { app, baseUrl: config.baseUrl };
}

/** Closes the browser, then the server; Chromium may leave connections open (or opened ahead) that close would wait for. */
export async function closeBrowserAndServer(browser: Browser, app: FastifyInstance): Promise<void> {
  await browser.close();
  const closing = app.close();
  app.server.closeAllConnections();
  await closing;
}
