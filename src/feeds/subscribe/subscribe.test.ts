import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Store, openStore } from '../../store/db.js';
import { createSubscription, subscriptionById } from '../../store/subscriptions.js';
import {
  HOUR,
  type FixtureItem,
  feedPipelineSuite,
  feedRow,
  hoursAgo,
  leaseFeed,
  queueUrls,
  rssDocument,
  serveFeed,
  testRefreshDeps,
  waitFor,
} from '../../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { pollOnce } from '../poller.js';
import { refreshFeed } from '../refresh.js';
import { subscribe } from './subscribe.js';

/** Subscribing: filters with the row, the deps' clock, and the backfill window exactly once, whoever fetches. */

const post = (slug: string, published: Date | null, title = slug): FixtureItem => ({
  link: `https://sub.example/${slug}`,
  title,
  published,
});

const slugs = (urls: string[]): string[] => urls.map((u) => u.replace('https://sub.example/', '')).sort();

/** How many times anything was offered to the account's queue: each offer bumps its version once. */
async function queueVersion(store: Store, accountId: number): Promise<number> {
  const row = await store.db
    .selectFrom('accounts')
    .select('queue_version')
    .where('id', '=', accountId)
    .executeTakeFirstOrThrow();
  return row.queue_version;
}

let path = 0;
const nextPath = (): string => `/sub-${++path}.xml`;

await describeEachEngine('subscribing', (ctx) => {
  const { server, deps } = feedPipelineSuite(ctx);
  // A second worker: its own store (its own connection, or pool) on the same database.
  let other: Store;
  before(() => {
    other = openStore(ctx.url());
  });
  after(async () => {
    await other.close();
  });
  const otherDeps = () => testRefreshDeps(other);

  test('the subscription is created with its filters, in one insert', async () => {
    const feed = serveFeed(server(), nextPath(), { title: 'Row', items: [] });
    const account = await newAccount(ctx.store());
    const { feed: row } = await subscribe(deps(), account.id, { url: feed.url, trusted: true });
    const other = await newAccount(ctx.store());
    const { subscription, created } = await createSubscription(ctx.store().db, other.id, {
      feedId: row.id,
      include: 'rust',
      exclude: '/^sponsored/',
      at: new Date().toISOString(),
    });
    assert.equal(created, true);
    // What the insert itself returned: there is no moment when the row exists without its filters.
    assert.deepEqual([subscription.include_filter, subscription.exclude_filter], ['rust', '/^sponsored/']);
    assert.equal(subscription.backfilled_at, null);
  });

  test('filters hold for the first fetch even when another worker makes it', async () => {
    const feed = serveFeed(server(), nextPath(), {
      title: 'Filtered',
      items: [post('rust', hoursAgo(1), 'Rust news'), post('ad', hoursAgo(2), 'Sponsored: Rust')],
    });
    const first = await newAccount(ctx.store());
    const { feed: row } = await subscribe(deps(), first.id, { url: feed.url, trusted: true });
    const claimed = await leaseFeed(other, row.id, 'worker-b');
    const picky = await newAccount(ctx.store());
    await subscribe(deps(), picky.id, { url: feed.url, exclude: 'sponsored' });
    assert.deepEqual(await queueUrls(ctx.store(), picky.id), [], 'the lease is held: nothing fetched yet');
    assert.equal((await refreshFeed(otherDeps(), claimed, 'worker-b')).status, 'updated');
    assert.deepEqual(slugs(await queueUrls(ctx.store(), picky.id)), ['rust']);
    assert.deepEqual(slugs(await queueUrls(ctx.store(), first.id)), ['ad', 'rust']);
  });

  test('the backfill window is measured by the injected clock, on both paths', async () => {
    const T = new Date('2025-03-01T12:00:00.000Z');
    const at = (hours: number): Date => new Date(T.getTime() + hours * HOUR);
    const feed = serveFeed(server(), nextPath(), {
      title: 'Clocked',
      items: [post('t-1', at(-1)), post('t-23', at(-23)), post('t-25', at(-25)), post('t-30d', at(-720))],
    });
    // A new feed: the subscription fetches it, at T by the clock (real time is long after all of it).
    const first = await newAccount(ctx.store());
    const made = await subscribe(testRefreshDeps(ctx.store(), { now: () => T }), first.id, { url: feed.url });
    assert.equal(made.subscription.created_at, T.toISOString());
    assert.equal(made.subscription.backfilled_at, T.toISOString());
    assert.equal(made.feed.last_success_at, T.toISOString());
    assert.deepEqual(slugs(await queueUrls(ctx.store(), first.id)), ['t-1', 't-23']);
    // A known feed: from the items Tidings has, two hours later by the clock.
    const later = await newAccount(ctx.store());
    const second = await subscribe(testRefreshDeps(ctx.store(), { now: () => at(2) }), later.id, {
      url: feed.url,
    });
    assert.equal(second.subscription.created_at, at(2).toISOString());
    assert.deepEqual(slugs(await queueUrls(ctx.store(), later.id)), ['t-1']);
    assert.equal(feed.requests().length, 3, 'two discoveries and one fetch: the known feed is not fetched');
  });

  test('a new feed another worker is fetching: its storing fills the new subscriber, once', async () => {
    const items = [post('fresh', hoursAgo(1)), post('recent', hoursAgo(20)), post('old', hoursAgo(30))];
    // The first request (worker B's fetch) is answered when the test says so; the others (discovery) at once.
    let answer: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      answer = resolve;
    });
    const feedPath = nextPath();
    const url = server().route(feedPath, (_req, res) => {
      const send = (): void => {
        res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(rssDocument('In flight', items));
      };
      if (server().requestsFor(feedPath).length === 1) void held.then(send);
      else send();
    });
    const first = await newAccount(ctx.store());
    const { feed: row } = await subscribe(deps(), first.id, { url, trusted: true });
    const claimed = await leaseFeed(other, row.id, 'worker-b');
    const fetching = refreshFeed(otherDeps(), claimed, 'worker-b');
    await waitFor('worker B to ask for the feed', () =>
      Promise.resolve(server().requestsFor(feedPath).length === 1),
    );
    const account = await newAccount(ctx.store());
    const made = await subscribe(deps(), account.id, { url });
    assert.equal(made.subscription.backfilled_at, null, 'worker B holds the lease: the subscription waits');
    assert.deepEqual(await queueUrls(ctx.store(), account.id), []);
    answer();
    assert.deepEqual(await fetching, { status: 'updated', newItems: 3, queued: 4 });

    for (const id of [first.id, account.id]) {
      assert.deepEqual(slugs(await queueUrls(ctx.store(), id)), ['fresh', 'recent']);
      assert.equal(await queueVersion(ctx.store(), id), 2, 'each item offered once');
    }
    assert.notEqual(
      (await subscriptionById(ctx.store().db, account.id, made.subscription.id))?.backfilled_at,
      null,
    );
    await pollOnce(deps(), { all: true });
    await pollOnce(otherDeps(), { all: true });
    assert.equal(await queueVersion(ctx.store(), account.id), 2);
    assert.equal((await feedRow(ctx.store(), row.id)).lease_owner, null);
  });

  test('subscribing while two workers poll: every subscriber gets its window exactly once', async () => {
    const ROUNDS = 8;
    const checks: { accountId: number; expected: string[] }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const items = [
        post(`r${round}-a`, hoursAgo(2)),
        post(`r${round}-b`, hoursAgo(5)),
        post(`r${round}-old`, hoursAgo(40)),
      ];
      const feed = serveFeed(server(), nextPath(), {
        title: `Round ${round}`,
        items,
        delayMs: 20 + (round % 4) * 15,
      });
      const known = round % 2 === 1;
      if (known) {
        // A feed already fetched, which shows a new item to the pass that races the subscription.
        const early = await newAccount(ctx.store());
        await subscribe(deps(), early.id, { url: feed.url });
        feed.items.unshift(post(`r${round}-new`, new Date()));
      } else {
        const early = await newAccount(ctx.store());
        await subscribe(deps(), early.id, { url: feed.url, trusted: true });
      }
      const account = await newAccount(ctx.store());
      const offset = (round * 7) % 40;
      await Promise.all([
        pollOnce(otherDeps(), { all: true, owner: `worker-b-${round}` }),
        sleep(offset).then(() => subscribe(deps(), account.id, { url: feed.url })),
      ]);
      const expected = [`r${round}-a`, `r${round}-b`, ...(known ? [`r${round}-new`] : [])];
      checks.push({ accountId: account.id, expected });
    }
    // Whatever was left unfilled (a fetch in flight elsewhere) is filled by the next passes, still once.
    await pollOnce(deps(), { all: true });
    await pollOnce(otherDeps(), { all: true });
    for (const { accountId, expected } of checks) {
      assert.deepEqual(slugs(await queueUrls(ctx.store(), accountId)), expected.sort());
      assert.equal(await queueVersion(ctx.store(), accountId), expected.length, `account ${accountId}`);
    }
  });
});
