/**
 * The sample account `npm run screenshots` photographs (scripts/screenshots.ts): a digest built today by
 * the real pipeline, past digests in the archive, a queue of saved links and feed items, two feeds, and
 * one saved page read, for the reading view. Everything in a fresh SQLite database.
 */
import { sql } from 'kysely';
import { issueKey } from '../src/accounts/apiKeys.js';
import { createAccountWithKey } from '../src/accounts/service.js';
import { buildDigestNow } from '../src/digest/build.js';
import { addSavedUrl } from '../src/queue/add.js';
import { checkItem, enqueue } from '../src/queue/enqueue.js';
import type { Store } from '../src/store/db.js';
import { createDigest } from '../src/store/digests.js';
import { findOrCreateFeed } from '../src/store/feeds.js';
import { linkUnreadItems } from '../src/store/pages.js';
import { createSubscription } from '../src/store/subscriptions.js';
import { queueFeedItem, saveUrl, testDigestDeps } from '../src/test/digestPipeline.js';

export interface Sample {
  accountId: number;
  apiKey: string;
  /** Today's digest, built from the morning's links. */
  digestId: number;
  /** The saved page the reading view opens (`/items/ID`). */
  pageId: number;
}

const hoursAgo = (h: number): string => new Date(Date.now() - h * 3600_000).toISOString();

export async function makeSample(store: Store): Promise<Sample> {
  const { account, apiKey } = await createAccountWithKey(store, {
    name: 'Ada',
    timezone: 'Europe/Berlin',
    email: 'ada@example.com',
  });
  await issueKey(store, account.id, 'phone');
  await issueKey(store, account.id, 'work laptop');

  const digestId = await todaysDigest(store, account.id);
  const firstQueued = await nextQueueItemId(store);
  await queueSample(store, account.id);
  await archiveSample(store, account.id);
  const ages = [30, 20, 5, 3, 1];
  const { rows } = await sql<{ id: number }>`select id from queue_items where id >= ${firstQueued}
    order by id`.execute(store.db);
  for (const [i, row] of rows.entries()) {
    await sql`update queue_items set created_at = ${hoursAgo(ages[i] ?? 1)} where id = ${row.id}`.execute(
      store.db,
    );
  }
  return { accountId: account.id, apiKey, digestId, pageId: await readPage(store, account.id) };
}

/** The morning's links, built into today's digest by the real pipeline (its web page, its e-mail). */
async function todaysDigest(store: Store, accountId: number): Promise<number> {
  await saveUrl(store, accountId, 'https://www.example.com/essays/maps', 'How old maps were drawn');
  await saveUrl(store, accountId, 'https://blog.example.org/2026/11/bread', 'A slow loaf of bread');
  const harbour: [string, string][] = [
    ['Ferry timetable changes for the winter', 'The late boat stops running in December.'],
    ['The lighthouse opens its doors on Sunday', 'Guided visits every hour, free of charge.'],
    ['Fishing boats return early before the storm', 'The harbour master asks for the quay to be kept free.'],
  ];
  for (const [n, [title, summary]] of harbour.entries()) {
    await queueFeedItem(store, accountId, {
      feedUrl: 'https://harbour.example/news.xml',
      feedTitle: 'Harbour News',
      url: `https://harbour.example/news/${n + 1}`,
      title,
      summary,
      published: hoursAgo(10 + n),
    });
  }
  await queueFeedItem(store, accountId, {
    feedUrl: 'https://stars.example/feed.xml',
    feedTitle: 'Night Sky',
    url: 'https://stars.example/2026/geminids',
    title: 'The Geminids peak next week',
    summary: 'Up to a hundred meteors an hour, best after midnight.',
    published: hoursAgo(14),
  });
  const built = await buildDigestNow(testDigestDeps(store), accountId);
  if (built.status !== 'built') throw new Error(`today's sample digest was not built: ${built.status}`);
  return built.digestId;
}

async function nextQueueItemId(store: Store): Promise<number> {
  const { rows } = await sql<{ id: number | null }>`select max(id) as id from queue_items`.execute(store.db);
  return (rows[0]?.id ?? 0) + 1;
}

/** What waits for the next digest: saved links, a feed's items; a second feed with a filter and an error. */
async function queueSample(store: Store, accountId: number): Promise<void> {
  const saved: [string, string][] = [
    ['https://www.example.com/essays/slow-software', 'In praise of slow software'],
    ['https://blog.example.org/2026/11/gardening-in-november', 'What to plant in November'],
    ['https://news.example.net/science/deep-sea-vents', 'Life around deep-sea vents'],
  ];
  for (const [url, title] of saved) {
    await addSavedUrl(store, accountId, { url, title, source: 'api' }, { limit: 100 });
  }
  await store.db.transaction().execute(async (trx) => {
    const at = hoursAgo(12);
    const feed = await findOrCreateFeed(trx, {
      url: 'https://letters.example/feed.xml',
      title: 'Letters',
      siteUrl: null,
      at,
    });
    await createSubscription(trx, accountId, { feedId: feed.id, title: 'Weekly letters', at });
    for (const [n, title] of ['On walking', 'Notes from the coast'].entries()) {
      await enqueue(
        trx,
        accountId,
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
    await createSubscription(trx, accountId, {
      feedId: feed.id,
      folder: 'Pictures',
      exclude: 'sponsored',
      at,
    });
  });
  await sql`update feeds set last_fetched_at = ${hoursAgo(0.5)}, next_fetch_at = ${hoursAgo(-0.5)},
    site_url = 'https://letters.example/' where url = 'https://letters.example/feed.xml'`.execute(store.db);
  await sql`update feeds set last_fetched_at = ${hoursAgo(2)}, next_fetch_at = ${hoursAgo(-1)},
    error_count = 2, last_error = 'the server answered 503 Service Unavailable'
    where url = 'https://photos.example/atom.xml'`.execute(store.db);
}

/** Three earlier digests in the archive: two sent, one whose e-mail failed. */
async function archiveSample(store: Store, accountId: number): Promise<void> {
  for (const [n, delivery, items] of [
    [1, 'sent', 12],
    [2, 'sent', 9],
    [3, 'failed', 14],
  ] as const) {
    const built = hoursAgo(24 * n + 1);
    await createDigest(store.db, accountId, {
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
  await sql`update digests set sent_at = created_at where delivery = 'sent' and message_id like 'sample-%'`.execute(
    store.db,
  );
  await sql`update digests set last_error = '550 mailbox unavailable' where delivery = 'failed'`.execute(
    store.db,
  );
}

/** The first saved link's page, as the page reader would have read it: the reading view's sample. */
async function readPage(store: Store, accountId: number): Promise<number> {
  await linkUnreadItems(store.db, { now: new Date().toISOString(), limit: 100, accountId });
  const url = 'https://www.example.com/essays/slow-software';
  const paragraphs = [
    'Software used to wait for us. A program opened, did one thing, and closed; it did not ask to be updated, nor to be looked at again.',
    'Slow software is not software that is slow to run. It is software that is in no hurry to be noticed: it shows what you asked for, once a day, and then it is quiet.',
    'A digest is such a thing. The links of a day are gathered, a few from each feed, and they come in the morning, when there is time to read them.',
  ];
  const html = paragraphs.map((p) => `<p>${p}</p>`).join('\n');
  const text = paragraphs.join(' ');
  const { rows } = await sql<{ id: number | null }>`select page_id as id from queue_items
    where account_id = ${accountId} and url = ${url}`.execute(store.db);
  const id = rows[0]?.id ?? undefined;
  if (id === undefined) throw new Error(`the sample page ${url} was not linked to account ${accountId}`);
  await sql`update pages set state = 'read', fetched_at = ${hoursAgo(29)}, http_status = 200,
    final_url = ${url}, kind = 'html', title = 'In praise of slow software', site_name = 'Example Essays',
    author = 'R. Writer', description = 'Why the best programs wait for us.', language = 'en',
    html = ${html}, text = ${text}, word_count = ${text.split(' ').length}, reading_minutes = 1,
    media_type = 'text/html', next_attempt_at = null where id = ${id}`.execute(store.db);
  return id;
}
