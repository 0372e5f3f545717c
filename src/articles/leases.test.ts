import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { claimDuePages, linkUnreadItems } from '../store/pages.js';
import { useFeedServer, waitFor } from '../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { PAGE_TEST_HOST, pageOf, saveUrl, testClock, testReaderDeps } from '../test/pageFixtures.js';
import { enrichOnce } from './enrich.js';
import { extractPage } from './extract.js';
import { readPage } from './reader.js';
import { startPageReader } from './worker.js';

/** Leases: several workers share the pages, each fetched once; a worker that lost its lease writes nothing. */

await describeEachEngine('page reader leases', (ctx) => {
  const server = useFeedServer(PAGE_TEST_HOST);

  test('three workers at once fetch each page exactly once', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    const paths = Array.from({ length: 24 }, (_, i) => `/shared/${i}`);
    for (const path of paths) {
      server().route(path, (_req, res) => {
        // Slow enough that the workers' passes overlap.
        void sleep(30).then(() =>
          res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>Page ${path}</title><p>Text.</p>`),
        );
      });
      await saveUrl(store, account.id, server().url(path));
    }
    const deps = testReaderDeps(store);
    const summaries = await Promise.all(
      ['w1', 'w2', 'w3'].map((owner) => enrichOnce(deps, { owner, accountId: account.id, concurrency: 2 })),
    );
    assert.equal(
      summaries.reduce((n, s) => n + s.read, 0),
      paths.length,
    );
    for (const path of paths) {
      assert.equal(server().requestsFor(path).length, 1, path);
      const page = await pageOf(store, account.id, server().url(path));
      assert.deepEqual([page.state, page.attempts, page.title], ['read', 1, `Page ${path}`]);
    }
    if (ctx.engine === 'postgres') {
      assert.ok(summaries.filter((s) => s.read > 0).length >= 2, 'the work was shared');
    }
  });

  test("a worker whose lease was taken over writes nothing; the taker's read stands", async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    const url = server().route('/taken', (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Taken</title><p>Text.</p>'),
    );
    await saveUrl(store, account.id, url);
    const clock = testClock();
    const at = () => clock.now().toISOString();
    await linkUnreadItems(store.db, { now: at(), limit: 10, accountId: account.id });
    const lease = () => ({ now: at(), leaseUntil: new Date(clock.now().getTime() + 60_000).toISOString() });
    const [slow] = await claimDuePages(store.db, store.engine, {
      owner: 'slow',
      limit: 1,
      accountId: account.id,
      ...lease(),
    });
    assert.ok(slow !== undefined);
    clock.advance(61_000); // the slow worker's lease runs out
    const [fast] = await claimDuePages(store.db, store.engine, {
      owner: 'fast',
      limit: 1,
      accountId: account.id,
      ...lease(),
    });
    assert.equal(fast?.id, slow.id);
    assert.equal(fast.attempts, 2);

    assert.deepEqual(await readPage(testReaderDeps(store, { now: clock.now }), slow, 'slow', extractPage), {
      status: 'lease_lost',
    });
    let page = await pageOf(store, account.id, url);
    assert.deepEqual([page.state, page.title, page.lease_owner], ['pending', null, 'fast']);
    assert.equal(
      (await readPage(testReaderDeps(store, { now: clock.now }), fast, 'fast', extractPage)).status,
      'read',
    );
    page = await pageOf(store, account.id, url);
    assert.deepEqual([page.state, page.title, page.lease_owner], ['read', 'Taken', null]);
  });

  test('feed items are read only when their subscription asks for the original pages; --account limits the pass', async () => {
    const store = ctx.store();
    const [reader, other] = [await newAccount(store), await newAccount(store)];
    const now = new Date().toISOString();
    const feed = await store.db
      .insertInto('feeds')
      .values({
        url: server().url(`/feed-${reader.id}.xml`),
        title: 'A feed',
        site_url: null,
        next_fetch_at: now,
        created_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const subscribe = async (accountId: number, fetchOriginal: number) =>
      store.db
        .insertInto('subscriptions')
        .values({
          account_id: accountId,
          feed_id: feed.id,
          title: null,
          folder: null,
          include_filter: null,
          exclude_filter: null,
          created_at: now,
          fetch_original: fetchOriginal,
        })
        .execute();
    await subscribe(reader.id, 1);
    await subscribe(other.id, 0);
    const item = (accountId: number, n: number) => ({
      account_id: accountId,
      url: server().url(`/feed-item/${reader.id}/${n}`),
      url_key: server().url(`/feed-item/${reader.id}/${n}`),
      title: `Item ${n}`,
      source: 'feed' as const,
      feed_id: feed.id,
      summary: null,
      published_at: null,
      created_at: now,
      updated_at: now,
    });
    await store.db
      .insertInto('queue_items')
      .values([item(reader.id, 1), item(other.id, 2)])
      .execute();
    await saveUrl(store, other.id, server().url(`/saved-by-other/${reader.id}`));

    const mine = await enrichOnce(testReaderDeps(store), { accountId: reader.id });
    assert.deepEqual([mine.linked, mine.pages], [1, 1]);
    assert.equal(server().requestsFor(`/saved-by-other/${reader.id}`).length, 0, "not the other account's");
    const linked = await store.db
      .selectFrom('queue_items')
      .select(['account_id', 'url', 'page_id'])
      .where('feed_id', '=', feed.id)
      .orderBy('id')
      .execute();
    assert.notEqual(linked[0]?.page_id, null);
    assert.equal(linked[1]?.page_id, null, 'a subscription without fetch_original is not read');

    const others = await enrichOnce(testReaderDeps(store), { accountId: other.id });
    assert.deepEqual([others.linked, others.pages], [1, 1]);
    assert.equal(server().requestsFor(`/saved-by-other/${reader.id}`).length, 1);
  });

  test('the background reader reads a link saved while it runs, and stops when asked', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    const url = server().route('/background', (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>In the background</title><p>Text.</p>'),
    );
    const worker = startPageReader(testReaderDeps(store), { maxSleepMs: 50 });
    try {
      await sleep(100);
      await saveUrl(store, account.id, url);
      await waitFor('the saved page to be read', async () => {
        const row = await store.db
          .selectFrom('queue_items as q')
          .innerJoin('pages as p', 'p.id', 'q.page_id')
          .select('p.state')
          .where('q.account_id', '=', account.id)
          .executeTakeFirst();
        return row?.state === 'read';
      });
    } finally {
      await worker.stop();
    }
    assert.equal(worker.name, 'page reader');
    assert.equal((await pageOf(store, account.id, url)).title, 'In the background');
    assert.equal(server().requestsFor('/background').length, 1);
  });

  test('a page whose lease would run out before it is fetched is given back unfetched', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    const url = server().route('/short-lease', (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Later</title>'),
    );
    await saveUrl(store, account.id, url);
    // Each look at the clock finds 4.5 minutes gone: a page's 5-minute lease is nearly out when its turn comes.
    let at = Date.now();
    const now = (): Date => new Date((at += 270_000));
    const summary = await enrichOnce(testReaderDeps(store, { now }), { accountId: account.id });
    assert.deepEqual([summary.linked, summary.pages], [1, 0]);
    const page = await pageOf(store, account.id, url);
    assert.deepEqual([page.state, page.attempts, page.lease_owner], ['pending', 0, null]);
    assert.equal(server().requestsFor('/short-lease').length, 0);
  });

  test('a page whose attempts never ended (the reader crashed on it) is given up without another fetch', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    const url = server().route('/crashes', (_req, res) => res.writeHead(200).end('<title>x</title>'));
    await saveUrl(store, account.id, url);
    await linkUnreadItems(store.db, { now: new Date().toISOString(), limit: 10, accountId: account.id });
    // Five claims whose workers died mid-read: the count is kept, the leases expired.
    await store.db.updateTable('pages').set({ attempts: 5 }).where('url', '=', url).execute();
    const summary = await enrichOnce(testReaderDeps(store), { accountId: account.id });
    assert.deepEqual([summary.pages, summary.failed], [1, 1]);
    const page = await pageOf(store, account.id, url);
    assert.deepEqual([page.state, page.attempts], ['failed', 6]);
    assert.match(page.error ?? '', /did not finish in 5 attempts/);
    assert.equal(server().requestsFor('/crashes').length, 0);
  });
});
