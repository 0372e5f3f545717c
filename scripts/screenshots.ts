/**
 * Screenshots of the web app's pages at desktop and phone width, for the README: a fresh SQLite database
 * with sample data, the server on a loopback port, Debian's Chromium. Writes docs/screenshots/*.png.
 *
 *   npm run screenshots
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { issueKey } from '../src/accounts/apiKeys.js';
import { createAccountWithKey } from '../src/accounts/service.js';
import { addSavedUrl } from '../src/queue/add.js';
import { checkItem, enqueue } from '../src/queue/enqueue.js';
import { openStore } from '../src/store/db.js';
import { createDigest } from '../src/store/digests.js';
import { findOrCreateFeed } from '../src/store/feeds.js';
import { migrateToLatest } from '../src/store/migrate.js';
import { createSubscription } from '../src/store/subscriptions.js';
import { launchBrowser, listeningServer } from '../src/test/browser.js';

const OUT = 'docs/screenshots';
const SIZES = { desktop: { width: 1280, height: 860 }, phone: { width: 390, height: 844 } } as const;

const dir = mkdtempSync(join(tmpdir(), 'tidings-screenshots-'));
const store = openStore(join(dir, 'tidings.db'));
await migrateToLatest(store);
const { account, apiKey } = await createAccountWithKey(store, {
  name: 'Ada',
  timezone: 'Europe/Berlin',
  email: 'ada@example.com',
});
await issueKey(store, account.id, 'phone');
await issueKey(store, account.id, 'work laptop');

const hoursAgo = (h: number): string => new Date(Date.now() - h * 3600_000).toISOString();
const saved: [string, string, number][] = [
  ['https://www.example.com/essays/slow-software', 'In praise of slow software', 30],
  ['https://blog.example.org/2026/11/gardening-in-november', 'What to plant in November', 20],
  ['https://news.example.net/science/deep-sea-vents', 'Life around deep-sea vents', 5],
];
for (const [url, title] of saved) {
  await addSavedUrl(store, account.id, { url, title, source: 'api' }, { limit: 100 });
}
await store.db.transaction().execute(async (trx) => {
  const at = hoursAgo(12);
  const feed = await findOrCreateFeed(trx, {
    url: 'https://letters.example/feed.xml',
    title: 'Letters',
    siteUrl: null,
    at,
  });
  await createSubscription(trx, account.id, { feedId: feed.id, title: 'Weekly letters', at });
  for (const [n, title] of ['On walking', 'Notes from the coast'].entries()) {
    await enqueue(
      trx,
      account.id,
      [checkItem({ url: `https://letters.example/${n + 1}`, title, source: 'feed', feedId: feed.id })],
      { engine: store.engine, limit: 100 },
    );
  }
});
await store.db.transaction().execute(async (trx) => {
  const at = hoursAgo(48);
  const feed = await findOrCreateFeed(trx, {
    url: 'https://photos.example/atom.xml',
    title: 'Photo of the day',
    siteUrl: 'https://photos.example/',
    at,
  });
  await createSubscription(trx, account.id, {
    feedId: feed.id,
    folder: 'Pictures',
    exclude: 'sponsored',
    at,
  });
});
await sql`update feeds set last_fetched_at = ${hoursAgo(0.5)}, next_fetch_at = ${hoursAgo(-0.5)},
  site_url = 'https://letters.example/' where url = 'https://letters.example/feed.xml'`.execute(store.db);
await sql`update feeds set last_fetched_at = ${hoursAgo(2)}, next_fetch_at = ${hoursAgo(-1)}, error_count = 2,
  last_error = 'the server answered 503 Service Unavailable' where url = 'https://photos.example/atom.xml'`.execute(
  store.db,
);
for (const [n, delivery, items] of [
  [1, 'sent', 12],
  [2, 'sent', 9],
  [3, 'failed', 14],
] as const) {
  const built = hoursAgo(24 * n + 1);
  await createDigest(store.db, account.id, {
    localDate: built.slice(0, 10),
    createdAt: built,
    itemCount: items,
    savedCount: 0,
    feedCount: 0,
    remaining: 0,
    delivery,
    nextAttemptAt: null,
    messageId: `sample-${n}`,
  });
}
await sql`update digests set sent_at = created_at where delivery = 'sent'`.execute(store.db);
await sql`update digests set last_error = '550 mailbox unavailable' where delivery = 'failed'`.execute(
  store.db,
);
const ages = [30, 20, 5, 3, 1];
const { rows } = await sql<{ id: number }>`select id from queue_items order by id`.execute(store.db);
for (const [i, row] of rows.entries()) {
  await sql`update queue_items set created_at = ${hoursAgo(ages[i] ?? 1)} where id = ${row.id}`.execute(
    store.db,
  );
}

const { app, baseUrl } = await listeningServer(store);
const browser = await launchBrowser();
try {
  mkdirSync(OUT, { recursive: true });
  const page = await browser.context.newPage();
  const shoot = async (name: string, fullPage = false): Promise<void> => {
    for (const [size, viewport] of Object.entries(SIZES)) {
      await page.setViewportSize(viewport);
      await page.screenshot({ path: `${OUT}/${name}-${size}.png`, fullPage: fullPage && size === 'desktop' });
    }
  };

  await page.goto(`${baseUrl}/sign-in`);
  await shoot('sign-in');
  await page.getByLabel('API key').fill(apiKey);
  await page.getByRole('button', { name: 'Sign in with key' }).click();
  await page.waitForURL(`${baseUrl}/queue`);
  await shoot('queue');
  await page.goto(`${baseUrl}/feeds`);
  await shoot('feeds', true);
  await page.goto(`${baseUrl}/digests`);
  await shoot('digests');
  await page.goto(`${baseUrl}/settings`);
  await shoot('settings');
  await page.goto(`${baseUrl}/keys`);
  await shoot('keys');
  await page.goto(`${baseUrl}/save`);
  await page.getByRole('button', { name: 'Make a bookmarklet with a new key' }).click();
  await shoot('save');
  console.log(`screenshots written to ${OUT}/`);
} finally {
  await browser.close();
  const closing = app.close();
  app.server.closeAllConnections();
  await closing;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
