import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, beforeEach } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Selectable } from 'kysely';
import type { NetworkPolicy } from '../fetch/address.js';
import type { FetchOptions, FetchResult } from '../fetch/fetch.js';
import type { RefreshDeps } from '../feeds/deps.js';
import { type RefreshOutcome, refreshFeed } from '../feeds/refresh.js';
import { subscribe } from '../feeds/subscribe/subscribe.js';
import type { Store } from '../store/db.js';
import { type FeedRow, claimFeed, feedById } from '../store/feeds.js';
import type { QueueItemsTable } from '../store/schema.js';
import { FeedServer, type RecordedRequest } from './feedServer.js';
import { type EngineContext, newAccount, silentLogger } from './harness.js';

/** Helpers for the feed pipeline's tests: feeds served by a FeedServer, deps, and looks into the database. */

export const HOUR = 3_600_000;
export const MINUTE = 60_000;

export const hoursAgo = (hours: number): Date => new Date(Date.now() - hours * HOUR);

/**
 * A loopback FeedServer shared by the tests of one suite: started before the first, closed after the last.
 * Call it inside the suite (describe's or describeEachEngine's callback) or at the top of a file without
 * suites: root-level hooks in a describeEachEngine file would run around the first engine's suite only.
 */
export function useFeedServer(
  host = '127.0.0.1',
  /** Routes every test of the suite uses. */
  routes: (server: FeedServer) => void = () => undefined,
): () => FeedServer {
  let server: FeedServer | undefined;
  before(async () => {
    server = await FeedServer.start(host);
    routes(server);
  });
  after(async () => {
    await server?.close();
  });
  return () => {
    if (server === undefined) throw new Error('the feed server is used outside a test');
    return server;
  };
}

/**
 * What every suite of the feed pipeline's tests sets up, inside describeEachEngine: a feed server, deps on
 * the engine's store, and no feed left over from an earlier test (pollOnce then sees only the test's own).
 */
export function feedPipelineSuite(ctx: EngineContext): { server: () => FeedServer; deps: () => RefreshDeps } {
  const server = useFeedServer();
  beforeEach(() => deleteAllFeeds(ctx.store()));
  return { server, deps: () => testRefreshDeps(ctx.store()) };
}

/**
 * Fetch options for the fetcher's own tests, whose server listens on 127.0.0.2: that address is allowed,
 * every other private one (127.0.0.1 included) refused.
 */
export const FETCH_TEST_HOST = '127.0.0.2';
export const fetchTestOptions: FetchOptions = {
  policy: { allowPrivate: false, isAllowed: (address) => address === FETCH_TEST_HOST },
  connectTimeoutMs: 2000,
  requestTimeoutMs: 5000,
};

/** The code of an error, or the kind of any other result: what most fetch tests assert first. */
export const fetchOutcome = (result: FetchResult): string =>
  result.kind === 'error' ? result.code : result.kind;

export interface FixtureItem {
  /** Defaults to the link (or, without one, the title). */
  guid?: string;
  link: string | null;
  title: string;
  summary?: string;
  /** null: an item without a date. */
  published: Date | null;
  /** The item's picture, served as an image enclosure. */
  image?: string;
}

const escapeXml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** An RSS 2.0 document; items in the order given (feeds list the newest first). */
export function rssDocument(title: string, items: readonly FixtureItem[]): string {
  const entries = items.map((item) => {
    const parts = [
      `<title>${escapeXml(item.title)}</title>`,
      `<guid isPermaLink="false">${escapeXml(item.guid ?? item.link ?? item.title)}</guid>`,
      item.link === null ? '' : `<link>${escapeXml(item.link)}</link>`,
      item.summary === undefined ? '' : `<description>${escapeXml(item.summary)}</description>`,
      item.published === null ? '' : `<pubDate>${item.published.toUTCString()}</pubDate>`,
      item.image === undefined
        ? ''
        : `<enclosure url="${escapeXml(item.image)}" type="image/jpeg" length="1"/>`,
    ];
    return `<item>${parts.join('')}</item>`;
  });
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel><title>${escapeXml(title)}</title>` +
    `<link>https://site.example/</link>${entries.join('')}</channel></rss>`
  );
}

export interface ServedFeed {
  url: string;
  path: string;
  /** Mutable: what the next request is answered with. */
  title: string;
  /** Mutable, newest first. */
  items: FixtureItem[];
  /** The requests this path received. */
  requests(): RecordedRequest[];
}

/**
 * Serves an RSS feed at `path` built from the (mutable) returned object on every request. With
 * `validators`, answers with an ETag and a Last-Modified (when the body last changed) and gives 304 to a
 * request that presents the current ETag, or the current Last-Modified without an ETag. `delayMs` holds
 * each answer back that long.
 */
export function serveFeed(
  server: FeedServer,
  path: string,
  init: { title: string; items: FixtureItem[]; validators?: boolean; delayMs?: number },
): ServedFeed {
  const feed: ServedFeed = {
    url: server.url(path),
    path,
    title: init.title,
    items: init.items,
    requests: () => server.requestsFor(path),
  };
  let lastBody = '';
  let lastModified = '';
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    const body = rssDocument(feed.title, feed.items);
    if (body !== lastBody) {
      lastBody = body;
      lastModified = new Date().toUTCString();
    }
    const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
    if (init.validators === true) {
      const inm = req.headers['if-none-match'];
      const ims = req.headers['if-modified-since'];
      if (inm === etag || (inm === undefined && ims === lastModified)) {
        res.writeHead(304, { etag, 'last-modified': lastModified }).end();
        return;
      }
    }
    res.writeHead(200, {
      'content-type': 'application/rss+xml; charset=utf-8',
      ...(init.validators === true ? { etag, 'last-modified': lastModified } : {}),
    });
    res.end(body);
  };
  server.route(path, (req, res) => {
    if (init.delayMs === undefined) answer(req, res);
    else setTimeout(() => answer(req, res), init.delayMs);
  });
  return feed;
}

/** Deps for refreshFeed / pollOnce / subscribe, with quick timeouts; loopback allowed unless `policy` says otherwise. */
export function testRefreshDeps(
  store: Store,
  overrides: {
    policy?: NetworkPolicy;
    maxBytes?: number;
    requestTimeoutMs?: number;
    now?: () => Date;
    queueLimit?: number;
    maxSubscriptions?: number;
    maxOpmlOutlines?: number;
  } = {},
): RefreshDeps {
  return {
    store,
    log: silentLogger,
    fetch: {
      policy: overrides.policy ?? { allowPrivate: true },
      maxBytes: overrides.maxBytes ?? 1024 * 1024,
      connectTimeoutMs: 2000,
      requestTimeoutMs: overrides.requestTimeoutMs ?? 5000,
    },
    backfillHours: 24,
    queueLimit: overrides.queueLimit ?? 10_000,
    maxSubscriptions: overrides.maxSubscriptions ?? 2_000,
    maxOpmlOutlines: overrides.maxOpmlOutlines ?? 2_000,
    ...(overrides.now === undefined ? {} : { now: overrides.now }),
  };
}

/** A new account subscribed to `url` without a fetch (as OPML import does): a feed known, not yet fetched. */
export async function trustedFeed(store: Store, url: string): Promise<{ feedId: number; accountId: number }> {
  const account = await newAccount(store);
  const { feed } = await subscribe(testRefreshDeps(store), account.id, { url, trusted: true });
  return { feedId: feed.id, accountId: account.id };
}

/** Leases one feed (whatever its schedule) to `owner` for a minute, as a worker would; throws when taken. */
export async function leaseFeed(store: Store, feedId: number, owner: string): Promise<FeedRow> {
  const t = Date.now();
  const claimed = await claimFeed(store.db, feedId, {
    owner,
    now: new Date(t).toISOString(),
    leaseUntil: new Date(t + 60_000).toISOString(),
  });
  if (claimed === null) throw new Error(`feed ${feedId} could not be claimed`);
  return claimed;
}

/** Claims one feed (whatever its schedule) and refreshes it, as a worker would; the outcome. */
export async function refreshNow(deps: RefreshDeps, feedId: number): Promise<RefreshOutcome> {
  const owner = `test-${feedId}`;
  return refreshFeed(deps, await leaseFeed(deps.store, feedId, owner), owner);
}

export async function feedRow(store: Store, feedId: number): Promise<FeedRow> {
  const row = await feedById(store.db, feedId);
  if (row === null) throw new Error(`no feed ${feedId}`);
  return row;
}

export type QueueRow = Selectable<QueueItemsTable>;

/** The account's queue, oldest first, every column. */
export async function queueRows(store: Store, accountId: number): Promise<QueueRow[]> {
  return store.db
    .selectFrom('queue_items')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}

export async function queueUrls(store: Store, accountId: number): Promise<string[]> {
  return (await queueRows(store, accountId)).map((r) => r.url);
}

export async function feedItemCount(store: Store, feedId: number): Promise<number> {
  const row = await store.db
    .selectFrom('feed_items')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('feed_id', '=', feedId)
    .executeTakeFirstOrThrow();
  return row.n;
}

/** Makes a feed due now (as if its next fetch time had come). */
export async function makeDue(store: Store, feedId: number): Promise<void> {
  await store.db
    .updateTable('feeds')
    .set({ next_fetch_at: new Date(Date.now() - 1000).toISOString() })
    .where('id', '=', feedId)
    .execute();
}

/** Forgets every feed (subscriptions and items go with them), so a test's pollOnce sees only its own. */
export async function deleteAllFeeds(store: Store): Promise<void> {
  await store.db.deleteFrom('feeds').execute();
}

/** Waits until `check` holds, polling every 25 ms; fails after `timeoutMs` with `what`. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}
