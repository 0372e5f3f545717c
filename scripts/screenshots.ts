/**
 * Screenshots of the web app at desktop and phone width: a fresh SQLite database with sample data
 * (scripts/screenshotSample.ts), the server on a loopback port, Debian's Chromium.
 *
 *   npm run screenshots            # the README's (English, docs/screenshots/*.png) and every language's
 *   npm run screenshots -- ar de   # only these languages' sets
 *
 * A language's set, docs/screenshots/CODE/: the queue, today's digest's web page and its e-mail, Settings
 * and the reading view, each at both widths, the sample account set to that language (issue 36).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { anyDigestToRead } from '../src/accounts/digests.js';
import { fitEmail } from '../src/digest/render/fit.js';
import { withMediaLinks } from '../src/digest/media.js';
import { LANGUAGE_CODES } from '../src/i18n/languages.js';
import { DIRECT_MEDIA } from '../src/lib/mediaUrl.js';
import { updateAccountSettings } from '../src/store/accounts.js';
import { openStore } from '../src/store/db.js';
import { migrateToLatest } from '../src/store/migrate.js';
import { launchBrowser, listeningServer } from '../src/test/browser.js';
import { type Sample, makeSample } from './screenshotSample.js';

const OUT = 'docs/screenshots';
const SIZES = { desktop: { width: 1280, height: 860 }, phone: { width: 390, height: 844 } } as const;
/** Every language a reader can choose; the pseudo-locale en-XA is for tests, not pictures. */
const LANGUAGES = LANGUAGE_CODES.filter((code) => code !== 'en-XA');

const asked = process.argv.slice(2);
const unknown = asked.filter((code) => !LANGUAGES.includes(code));
if (unknown.length > 0) {
  console.error(`not a language Tidings speaks: ${unknown.join(', ')} (one of ${LANGUAGES.join(', ')})`);
  process.exit(2);
}
const readme = asked.length === 0;
const languages = readme ? LANGUAGES : asked;

const dir = mkdtempSync(join(tmpdir(), 'tidings-screenshots-'));
const store = openStore(join(dir, 'tidings.db'));
await migrateToLatest(store);
const sample = await makeSample(store);

const { app, baseUrl } = await listeningServer(store);
const browser = await launchBrowser();
try {
  const page = await browser.context.newPage();
  const shoot = async (folder: string, name: string, fullPage = false): Promise<void> => {
    mkdirSync(folder, { recursive: true });
    for (const [size, viewport] of Object.entries(SIZES)) {
      await page.setViewportSize(viewport);
      await page.screenshot({
        path: `${folder}/${name}-${size}.png`,
        fullPage: fullPage && size === 'desktop',
      });
    }
  };

  await page.goto(`${baseUrl}/sign-in`);
  if (readme) await shoot(OUT, 'sign-in');
  await page.getByLabel('API key').fill(sample.apiKey);
  await page.getByRole('button', { name: 'Sign in with key' }).click();
  await page.waitForURL(`${baseUrl}/queue`);
  if (readme) await readmeSet(page, baseUrl, shoot);
  for (const code of languages) {
    await updateAccountSettings(store.db, sample.accountId, { language: code });
    await languageSet(page, baseUrl, sample, (name, fullPage) => shoot(`${OUT}/${code}`, name, fullPage));
    console.log(`${OUT}/${code}/ written`);
  }
  if (readme) console.log(`screenshots written to ${OUT}/`);
} finally {
  await browser.close();
  const closing = app.close();
  app.server.closeAllConnections();
  await closing;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

type Shoot = (folder: string, name: string, fullPage?: boolean) => Promise<void>;

/** The README's pictures, in English: docs/screenshots/NAME-SIZE.png. */
async function readmeSet(page: Page, base: string, shoot: Shoot): Promise<void> {
  await page.goto(`${base}/queue`);
  await shoot(OUT, 'queue');
  await page.goto(`${base}/feeds`);
  await shoot(OUT, 'feeds', true);
  await page.goto(`${base}/digests`);
  await shoot(OUT, 'digests');
  await page.goto(`${base}/settings`);
  await shoot(OUT, 'settings');
  await page.goto(`${base}/keys`);
  await shoot(OUT, 'keys');
  await page.goto(`${base}/save`);
  await page.getByRole('button', { name: 'Make a bookmarklet with a new key' }).click();
  await shoot(OUT, 'save');
}

/** One language's pictures, the account set to it: docs/screenshots/CODE/NAME-SIZE.png. */
async function languageSet(
  page: Page,
  base: string,
  s: Sample,
  shoot: (name: string, fullPage?: boolean) => Promise<void>,
): Promise<void> {
  await page.goto(`${base}/queue`);
  await shoot('queue');
  // Signed in, a digest's address without its token leads to the digest's own web page.
  await page.goto(`${base}/digests/${s.digestId}`);
  await shoot('digest', true);
  // The e-mail as it is sent (cut to its size), read now in the account's language.
  const loaded = await anyDigestToRead(store, s.digestId, base);
  if (loaded === null) throw new Error(`digest ${s.digestId} is gone`);
  await page.setContent(fitEmail(withMediaLinks(loaded.view, DIRECT_MEDIA)).html);
  await shoot('digest-email', true);
  await page.goto(`${base}/settings`);
  await shoot('settings', true);
  await page.goto(`${base}/items/${s.pageId}`);
  await shoot('reading');
}
