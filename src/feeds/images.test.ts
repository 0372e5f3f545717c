import assert from 'node:assert/strict';
import { test } from 'node:test';
import { feedPipelineSuite, hoursAgo, serveFeed } from '../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { subscribe } from './subscribe/subscribe.js';

/** A feed item's own picture: remembered with the item, and carried into every queue it goes to. */
await describeEachEngine('feed item images', (ctx) => {
  const { server, deps } = feedPipelineSuite(ctx);

  test('an item’s image is stored on feed_items and queue_items; an item without one has none', async () => {
    const feed = serveFeed(server(), '/pictures.xml', {
      title: 'Pictures',
      items: [
        { link: 'https://pics.example/a', title: 'With', published: hoursAgo(1), image: '/img/a.jpg' },
        { link: 'https://pics.example/b', title: 'Without', published: hoursAgo(2) },
      ],
    });
    const account = await newAccount(ctx.store());
    const { feed: row } = await subscribe(deps(), account.id, { url: feed.url });
    const db = ctx.store().db;
    const stored = await db
      .selectFrom('feed_items')
      .select(['url', 'image_url'])
      .where('feed_id', '=', row.id)
      .orderBy('url')
      .execute();
    const base = new URL(feed.url).origin;
    assert.deepEqual(stored, [
      { url: 'https://pics.example/a', image_url: `${base}/img/a.jpg` },
      { url: 'https://pics.example/b', image_url: null },
    ]);
    // Each subscriber's queue item carries the picture its feed item has.
    const queued = await db
      .selectFrom('queue_items')
      .select(['url', 'image_url'])
      .where('account_id', '=', account.id)
      .orderBy('url')
      .execute();
    assert.deepEqual(queued, stored);
  });
});
