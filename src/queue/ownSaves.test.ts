import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Store } from '../store/db.js';
import { queueFeedItem } from '../test/digestPipeline.js';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';
import { countStatements } from '../test/statements.js';
import { checkItem } from './enqueue.js';
import { planQueue } from './plan.js';

/**
 * Issue 33, point 1: a link a person saves that a feed had already queued becomes the person's own — its
 * source, its place among the saved links (as if saved now), the title the save gives — with its feed
 * still known; through either API variant, on both engines, by the one-call save on PostgreSQL too.
 */

const FEED = { feedUrl: 'https://news.example/feed', feedTitle: 'The Daily Example' };

/** The account's queue in the order digests take it. */
async function queueOf(store: Store, accountId: number) {
  return store.db
    .selectFrom('queue_items')
    .select(['id', 'url', 'title', 'source', 'feed_id', 'summary', 'published_at'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}

await describeEachEngine('a person’s save of a URL a feed queued', (ctx) => {
  let app: FastifyInstance;
  before(async () => {
    app = testServer(ctx.store());
    await app.ready();
  });
  after(async () => {
    await app.close();
  });

  const postA = async (apiKey: string, url: string, title?: string): Promise<unknown> => {
    const res = await app.inject({
      method: 'POST',
      url: `/api/v1/articles?apiKey=${apiKey}`,
      payload: title === undefined ? { url } : { url, title },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  test('variant A with a title: the item becomes a saved link, after the links saved before it', async (t) => {
    const store = ctx.store();
    const account = await newAccount(store);
    await postA(account.apiKey, 'https://own.example/first', 'First');
    const feedId = await queueFeedItem(store, account.id, {
      ...FEED,
      url: 'https://news.example/story',
      title: 'The feed’s headline',
      summary: 'What the feed says of it.',
      published: '2026-11-23T05:00:00.000Z',
    });
    // Saved after the feed queued its item: the writer now knows the queue's bound, so that on
    // PostgreSQL the next save is tried as one call first.
    await postA(account.apiKey, 'https://own.example/second', 'Second');
    const calls = countStatements(store, 'tidings_enqueue_at_once');
    t.after(() => calls.stop());
    assert.deepEqual(await postA(account.apiKey, 'https://news.example/story?utm_source=rss', 'Mine now'), {
      code: 0,
      message: 'saved for the next digest',
    });
    if (ctx.engine === 'postgres') assert.equal(calls.count, 1, 'the one call was tried (and handed it on)');
    const queue = await queueOf(store, account.id);
    assert.deepEqual(
      queue.map(({ url, title, source, feed_id }) => ({ url, title, source, feed_id })),
      [
        { url: 'https://own.example/first', title: 'First', source: 'api', feed_id: null },
        { url: 'https://own.example/second', title: 'Second', source: 'api', feed_id: null },
        { url: 'https://news.example/story', title: 'Mine now', source: 'api', feed_id: feedId },
      ],
    );
    const story = queue[2];
    assert.equal(story?.summary, 'What the feed says of it.', 'what the feed brought is kept');
    assert.equal(story.published_at, '2026-11-23T05:00:00.000Z');
    const listed = await app.inject({ url: `/api/v1/articles?apiKey=${account.apiKey}` });
    assert.deepEqual(
      listed.json<{ url: string }[]>().map((i) => i.url),
      ['https://own.example/first', 'https://own.example/second', 'https://news.example/story'],
    );
    // Saved again, it is the person's link already: deduplicated as any saved link is.
    assert.deepEqual(await postA(account.apiKey, 'https://news.example/story'), {
      code: 0,
      message: 'already in the queue',
    });
    assert.equal((await queueOf(store, account.id)).length, 3);
  });

  test('variant B without a title: the feed’s title stays, the item is the person’s', async (t) => {
    const store = ctx.store();
    const account = await newAccount(store);
    const feedId = await queueFeedItem(store, account.id, {
      ...FEED,
      url: 'https://news.example/other',
      title: 'Another headline',
    });
    await postA(account.apiKey, 'https://own.example/before');
    const calls = countStatements(store, 'tidings_enqueue_at_once');
    t.after(() => calls.stop());
    const res = await app.inject({
      method: 'POST',
      url: `/api?api_key=${account.apiKey}`,
      payload: { url: 'https://news.example/other' },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { message: 'success' });
    if (ctx.engine === 'postgres') assert.equal(calls.count, 1, 'the one call was tried (and handed it on)');
    const queue = await queueOf(store, account.id);
    assert.deepEqual(
      queue.map(({ url, title, source, feed_id }) => ({ url, title, source, feed_id })),
      [
        {
          url: 'https://own.example/before',
          title: 'https://own.example/before',
          source: 'api',
          feed_id: null,
        },
        { url: 'https://news.example/other', title: 'Another headline', source: 'api', feed_id: feedId },
      ],
    );
  });

  test('a full queue still takes it: the queue does not grow', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    await queueFeedItem(store, account.id, { ...FEED, url: 'https://news.example/full', title: 'Full' });
    const small = testServer(store, { queueLimit: 1 });
    try {
      const res = await small.inject({
        method: 'POST',
        url: `/api/v1/articles?apiKey=${account.apiKey}`,
        payload: { url: 'https://news.example/full' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json<{ message: string }>().message, 'saved for the next digest');
      const other = await small.inject({
        method: 'POST',
        url: `/api/v1/articles?apiKey=${account.apiKey}`,
        payload: { url: 'https://own.example/new' },
      });
      assert.equal(other.statusCode, 409, 'a new URL is refused at the limit');
    } finally {
      await small.close();
    }
    assert.deepEqual(
      (await queueOf(store, account.id)).map((r) => r.source),
      ['api'],
    );
  });
});

test('planQueue: a feed’s item, then a person’s save of it in the same batch, is inserted as the save', () => {
  const feed = checkItem({ url: 'https://e.com/a', title: 'Feed', source: 'feed', feedId: 7 });
  const save = checkItem({ url: 'https://e.com/a', title: undefined, source: 'api' });
  const again = checkItem({ url: 'https://e.com/a', title: 'Feed again', source: 'feed', feedId: 8 });
  const plan = planQueue(
    [feed, save, again].map((item) => ({ item, limit: 10 })),
    new Map(),
    0,
  );
  assert.deepEqual(
    plan.answers.map((a) => ('outcome' in a ? a.outcome : 'full')),
    ['added', 'added', 'already_queued'],
  );
  assert.deepEqual(
    plan.inserts.map((r) => [r.source, r.title, r.feedId]),
    [['api', 'Feed', 7]],
  );
  assert.equal(plan.length, 1);
  // Waiting from a feed: adopted (with the save's title), never renamed by a feed.
  const waiting = new Map([[save.urlKey, { id: 3, title: 'Feed', source: 'feed' as const }]]);
  const titled = checkItem({ url: 'https://e.com/a', title: 'Mine', source: 'api' });
  const adopted = planQueue(
    [again, titled, save].map((item) => ({ item, limit: 1 })),
    waiting,
    1,
  );
  assert.deepEqual(
    adopted.answers.map((a) => ('outcome' in a ? a.outcome : 'full')),
    ['already_queued', 'added', 'already_queued'],
  );
  assert.deepEqual(adopted.adopts, [{ id: 3, title: 'Mine', source: 'api' }]);
  assert.deepEqual([adopted.inserts, adopted.retitles, adopted.length], [[], [], 1]);
});
