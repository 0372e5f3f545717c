import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addSavedUrl } from '../queue/add.js';
import {
  feedItemCount,
  feedPipelineSuite,
  hoursAgo,
  queueRows,
  queueUrls,
  serveFeed,
} from '../test/feedFixtures.js';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';
import { pollOnce } from './poller.js';
import { subscribe } from './subscribe/subscribe.js';

/** Items of a feed becoming queue items: what is queued, when, for whom, and only once. */

const post = (slug: string, published: Date | null, title = slug, summary?: string) => ({
  link: `https://news.example/posts/${slug}`,
  title,
  published,
  ...(summary === undefined ? {} : { summary }),
});

let path = 0;
const nextPath = (): string => `/feed-${++path}.xml`;

await describeEachEngine('feed items to queues', (ctx) => {
  const { server, deps } = feedPipelineSuite(ctx);

  test('an item with a guid longer than an index entry may hold is stored and queued once', async () => {
    const guid = `urn:x:${'ü'.repeat(3000)}`;
    const feed = serveFeed(server(), nextPath(), {
      title: 'Long ids',
      items: [{ ...post('long-guid', hoursAgo(1)), guid }],
    });
    const account = await newAccount(ctx.store());
    const { feed: row } = await subscribe(deps(), account.id, { url: feed.url });
    assert.equal(row.last_error, null);
    assert.equal(await feedItemCount(ctx.store(), row.id), 1);
    await pollOnce(deps(), { all: true });
    assert.deepEqual(await queueUrls(ctx.store(), account.id), ['https://news.example/posts/long-guid']);
  });

  test('items sharing a guid in one fetch are remembered and queued once, the oldest; a link saved by hand stays one item', async () => {
    const feed = serveFeed(server(), nextPath(), {
      title: 'Repeats',
      items: [
        { ...post('newer-copy', hoursAgo(1)), guid: 'same' },
        post('saved-too', hoursAgo(2)),
        { ...post('older-copy', hoursAgo(3)), guid: 'same' },
      ],
    });
    const account = await newAccount(ctx.store());
    await addSavedUrl(
      ctx.store(),
      account.id,
      { url: 'https://news.example/posts/saved-too', title: 'By hand', source: 'api' },
      { limit: 100 },
    );
    const { feed: row } = await subscribe(deps(), account.id, { url: feed.url });
    assert.equal(await feedItemCount(ctx.store(), row.id), 2);
    assert.deepEqual(await queueUrls(ctx.store(), account.id), [
      'https://news.example/posts/saved-too',
      'https://news.example/posts/older-copy',
    ]);
    const again = await pollOnce(deps(), { all: true });
    assert.deepEqual([again.updated, again.newItems, again.queued], [1, 0, 0]);
  });

  test('first subscribe queues only the last 24 h; older and undated items are only remembered', async () => {
    const feed = serveFeed(server(), nextPath(), {
      title: 'Daily news',
      items: [
        post('fresh', hoursAgo(1)),
        post('yesterday', hoursAgo(20)),
        post('undated', null),
        post('old', hoursAgo(30)),
        post('ancient', hoursAgo(24 * 30)),
      ],
    });
    const account = await newAccount(ctx.store());
    const { feed: row, created } = await subscribe(deps(), account.id, { url: feed.url });
    assert.equal(created, true);
    assert.equal(row.title, 'Daily news');
    assert.notEqual(row.last_success_at, null);
    assert.equal(await feedItemCount(ctx.store(), row.id), 5);
    // Oldest first, as they were published.
    assert.deepEqual(await queueUrls(ctx.store(), account.id), [
      'https://news.example/posts/yesterday',
      'https://news.example/posts/fresh',
    ]);
  });

  test('repeated polls queue each item exactly once, unchanged feed or one new item', async () => {
    const feed = serveFeed(server(), nextPath(), {
      title: 'Polled',
      items: [post('a', hoursAgo(2)), post('b', hoursAgo(3))],
    });
    const account = await newAccount(ctx.store());
    const { feed: row } = await subscribe(deps(), account.id, { url: feed.url });
    const before = feed.requests().length;

    for (let i = 0; i < 3; i++) {
      const s = await pollOnce(deps(), { all: true });
      assert.deepEqual(
        { feeds: s.feeds, updated: s.updated, newItems: s.newItems, queued: s.queued, errors: s.errors },
        { feeds: 1, updated: 1, newItems: 0, queued: 0, errors: 0 },
      );
    }
    assert.equal(feed.requests().length, before + 3, 'each pass fetched the feed');
    assert.deepEqual(await queueUrls(ctx.store(), account.id), [
      'https://news.example/posts/b',
      'https://news.example/posts/a',
    ]);

    feed.items.unshift(post('c', new Date()));
    const withNew = await pollOnce(deps(), { all: true });
    assert.equal(withNew.newItems, 1);
    assert.equal(withNew.queued, 1);
    for (let i = 0; i < 2; i++) assert.equal((await pollOnce(deps(), { all: true })).queued, 0);

    const urls = await queueUrls(ctx.store(), account.id);
    assert.deepEqual(urls, [
      'https://news.example/posts/b',
      'https://news.example/posts/a',
      'https://news.example/posts/c',
    ]);
    assert.equal(await feedItemCount(ctx.store(), row.id), 3);
  });

  test('an item without a date that appears after the first fetch is queued', async () => {
    const feed = serveFeed(server(), nextPath(), { title: 'Undated', items: [post('first', null)] });
    const account = await newAccount(ctx.store());
    await subscribe(deps(), account.id, { url: feed.url });
    assert.deepEqual(await queueUrls(ctx.store(), account.id), []);
    feed.items.unshift(post('second', null));
    await pollOnce(deps(), { all: true });
    assert.deepEqual(await queueUrls(ctx.store(), account.id), ['https://news.example/posts/second']);
    // A later subscriber is backfilled the same way: the undated item seen later, not the first one.
    const later = await newAccount(ctx.store());
    await subscribe(deps(), later.id, { url: feed.url });
    assert.deepEqual(await queueUrls(ctx.store(), later.id), ['https://news.example/posts/second']);
  });

  test('the same URL from two feeds, or from a feed and the API, is queued once per account', async () => {
    const one = serveFeed(server(), nextPath(), {
      title: 'One',
      items: [post('shared', hoursAgo(1)), post('only-one', hoursAgo(2))],
    });
    const two = serveFeed(server(), nextPath(), {
      title: 'Two',
      items: [
        {
          guid: 'two-1',
          link: 'https://news.example/posts/shared?utm_source=two&utm_medium=rss',
          title: 'Shared, tracked',
          published: hoursAgo(1),
        },
      ],
    });
    const ada = await newAccount(ctx.store());
    const bob = await newAccount(ctx.store());
    // Saved by hand first, then published by a feed with tracking parameters.
    assert.equal(
      await addSavedUrl(
        ctx.store(),
        ada.id,
        { url: 'https://news.example/posts/by-hand', title: 'By hand', source: 'api' },
        { limit: 10_000 },
      ),
      'added',
    );
    await subscribe(deps(), ada.id, { url: one.url });
    await subscribe(deps(), ada.id, { url: two.url });
    await subscribe(deps(), bob.id, { url: two.url });
    await subscribe(deps(), bob.id, { url: one.url });

    one.items.unshift(post('by-hand?utm_campaign=spring&utm_source=one', new Date(), 'By hand, again'));
    two.items.unshift({
      guid: 'two-2',
      link: 'https://news.example/posts/only-one?utm_source=two',
      title: 'Only one, from two',
      published: new Date(),
    });
    for (let i = 0; i < 2; i++) await pollOnce(deps(), { all: true });

    const adaQueue = await queueRows(ctx.store(), ada.id);
    assert.deepEqual(
      adaQueue.map((r) => [r.url, r.source]),
      [
        ['https://news.example/posts/by-hand', 'api'],
        ['https://news.example/posts/only-one', 'feed'],
        ['https://news.example/posts/shared', 'feed'],
      ],
    );
    assert.equal(adaQueue[0]?.feed_id, null);
    assert.equal(adaQueue[0].title, 'By hand', 'a feed never renames what the reader saved');
    const bobUrls = (await queueRows(ctx.store(), bob.id)).map((r) => r.url);
    assert.equal(bobUrls.length, 3, bobUrls.join('\n'));
    assert.equal(new Set(bobUrls.map((u) => u.split('?')[0])).size, 3, bobUrls.join('\n'));
  });

  test('a second account subscribing later gets the recent items backfilled, without a fetch', async () => {
    const feed = serveFeed(server(), nextPath(), {
      title: 'Backfill',
      items: [
        post('new', hoursAgo(1)),
        post('newer-undated', null),
        post('recent', hoursAgo(23)),
        post('old', hoursAgo(48)),
      ],
    });
    const first = await newAccount(ctx.store());
    await subscribe(deps(), first.id, { url: feed.url });
    await pollOnce(deps(), { all: true });
    const fetches = feed.requests().length;

    const later = await newAccount(ctx.store());
    const { feed: row, created } = await subscribe(deps(), later.id, { url: feed.url });
    assert.equal(created, true);
    const expected = ['https://news.example/posts/recent', 'https://news.example/posts/new'];
    assert.deepEqual(await queueUrls(ctx.store(), first.id), expected);
    // The same items as the first subscriber: not the old one, nor the undated one the first fetch found.
    assert.deepEqual((await queueUrls(ctx.store(), later.id)).sort(), [...expected].sort());
    for (const r of await queueRows(ctx.store(), later.id)) {
      assert.equal(r.source, 'feed');
      assert.equal(r.feed_id, row.id);
    }
    // Discovery reads the URL once; the items themselves come from what Tidings already knows.
    assert.ok(feed.requests().length <= fetches + 1);
  });

  test('include and exclude filters (words and /regex/) decide per subscription', async () => {
    const feed = serveFeed(server(), nextPath(), {
      title: 'Tech',
      items: [
        post('rust', hoursAgo(1), 'Rust 1.80 released'),
        post('go', hoursAgo(2), 'Go 1.23 is out'),
        post('gophers', hoursAgo(3), 'Gophers everywhere'),
        post('python', hoursAgo(4), 'Python news', 'Nothing about rust here'),
        post('ad', hoursAgo(5), 'Sponsored: Rust hosting'),
      ],
    });
    const picky = await newAccount(ctx.store());
    const noAds = await newAccount(ctx.store());
    const all = await newAccount(ctx.store());
    const urlsOf = async (id: number): Promise<string[]> =>
      (await queueUrls(ctx.store(), id)).map((u) => u.replace('https://news.example/posts/', '')).sort();

    // The first subscription fetches the feed; the others are backfilled from its items.
    await subscribe(deps(), picky.id, { url: feed.url, include: 'rust, /^go\\b/', exclude: 'sponsored' });
    await subscribe(deps(), noAds.id, { url: feed.url, exclude: '/^sponsored:/' });
    await subscribe(deps(), all.id, { url: feed.url });
    assert.deepEqual(await urlsOf(picky.id), ['go', 'python', 'rust']);
    assert.deepEqual(await urlsOf(noAds.id), ['go', 'gophers', 'python', 'rust']);
    assert.deepEqual(await urlsOf(all.id), ['ad', 'go', 'gophers', 'python', 'rust']);

    // New items go through the same filters when a poll finds them.
    feed.items.unshift(
      post('rust-2', new Date(), 'This week in Rust'),
      post('sponsored-2', new Date(), 'Sponsored: more hosting'),
      post('golang', new Date(), 'go: the language'),
    );
    await pollOnce(deps(), { all: true });
    assert.deepEqual(await urlsOf(picky.id), ['go', 'golang', 'python', 'rust', 'rust-2']);
    assert.deepEqual(await urlsOf(noAds.id), ['go', 'golang', 'gophers', 'python', 'rust', 'rust-2']);
    assert.equal((await urlsOf(all.id)).length, 8);
  });

  test('feed items carry feed_id and source "feed", and the API lists them', async () => {
    const feed = serveFeed(server(), nextPath(), {
      title: 'Listed',
      items: [post('two', hoursAgo(1), 'Second post'), post('one', hoursAgo(2), 'First post')],
    });
    const account = await newAccount(ctx.store());
    const { feed: row } = await subscribe(deps(), account.id, { url: feed.url });
    await addSavedUrl(
      ctx.store(),
      account.id,
      { url: 'https://elsewhere.example/', title: 'Saved', source: 'api' },
      { limit: 10_000 },
    );
    const rows = await queueRows(ctx.store(), account.id);
    assert.deepEqual(
      rows.map((r) => [r.source, r.feed_id]),
      [
        ['feed', row.id],
        ['feed', row.id],
        ['api', null],
      ],
    );

    const app = testServer(ctx.store());
    try {
      for (const url of [`/api/v1/articles?apiKey=${account.apiKey}`, `/api?api_key=${account.apiKey}`]) {
        const res = await app.inject({ method: 'GET', url });
        assert.equal(res.statusCode, 200, res.body);
        assert.deepEqual(res.json(), [
          { url: 'https://news.example/posts/one', title: 'First post' },
          { url: 'https://news.example/posts/two', title: 'Second post' },
          { url: 'https://elsewhere.example/', title: 'Saved' },
        ]);
      }
    } finally {
      await app.close();
    }
  });
});
