import assert from 'node:assert/strict';
import { test } from 'node:test';
import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  RootOperationNode,
} from 'kysely';
import type { Store } from '../store/db.js';
import {
  HOUR,
  feedItemCount,
  feedPipelineSuite,
  feedRow,
  hoursAgo,
  leaseFeed,
  makeDue,
  queueUrls,
  serveFeed,
  testRefreshDeps,
  trustedFeed,
} from '../test/feedFixtures.js';
import { describeEachEngine } from '../test/harness.js';
import type { FeedItem } from './parse/parse.js';
import { pollOnce } from './poller.js';
import { recordOutcome, storeFetch } from './writer.js';

/**
 * Fetch outcomes are written in batches (writer.ts): a pass's 304s, updates and errors together, each
 * still only under its own lease, with its own error count, and one failing outcome failing only itself.
 */

const item = (feed: string, n: number) => ({
  link: `https://batch.example/${feed}/${n}`,
  title: `${feed} #${n}`,
  published: hoursAgo(n),
});

/** Counts the statements run through the store's Kysely (inside transactions too). */
function counted(store: Store): { store: Store; statements: () => number } {
  let n = 0;
  const plugin: KyselyPlugin = {
    transformQuery: (args: PluginTransformQueryArgs): RootOperationNode => {
      n++;
      return args.node;
    },
    transformResult: (args: PluginTransformResultArgs) => Promise.resolve(args.result),
  };
  return { store: { ...store, db: store.db.withPlugin(plugin) }, statements: () => n };
}

const lease = (store: Store, feedId: number, owner: string, until: Date) =>
  store.db
    .updateTable('feeds')
    .set({ lease_owner: owner, lease_until: until.toISOString() })
    .where('id', '=', feedId)
    .execute();

await describeEachEngine('feed outcomes written in batches', (ctx) => {
  const { server, deps } = feedPipelineSuite(ctx);
  let n = 0;
  const name = (what: string): string => `${what}-${++n}`;

  test('one pass with a 304, an update, an error and a feed another worker holds: each written as before', async () => {
    const same = serveFeed(server(), `/${name('same')}.xml`, {
      title: 'Same',
      items: [item('same', 1)],
      validators: true,
    });
    const changing = serveFeed(server(), `/${name('changing')}.xml`, {
      title: 'Changing',
      items: [item('changing', 2)],
      validators: true,
    });
    const brokenPath = `/${name('broken')}.xml`;
    let brokenNow = false;
    const broken = serveFeed(server(), brokenPath, { title: 'Broken', items: [item('broken', 1)] });
    const held = serveFeed(server(), `/${name('held')}.xml`, { title: 'Held', items: [item('held', 1)] });
    const feeds = {
      same: await trustedFeed(ctx.store(), same.url),
      changing: await trustedFeed(ctx.store(), changing.url),
      broken: await trustedFeed(ctx.store(), broken.url),
      held: await trustedFeed(ctx.store(), held.url),
    };
    const first = await pollOnce(deps(), { all: true });
    assert.deepEqual([first.feeds, first.updated, first.errors], [4, 4, 0]);
    const before = {
      same: await feedRow(ctx.store(), feeds.same.feedId),
      broken: await feedRow(ctx.store(), feeds.broken.feedId),
    };

    changing.items = [item('changing', 1), ...changing.items];
    server().route(brokenPath, (_req, res) => {
      brokenNow = true;
      res.writeHead(500).end();
    });
    // The broken feed had failed twice already; the held one is another worker's.
    await ctx
      .store()
      .db.updateTable('feeds')
      .set({ error_count: 2 })
      .where('id', '=', feeds.broken.feedId)
      .execute();
    await lease(ctx.store(), feeds.held.feedId, 'other-worker', new Date(Date.now() + HOUR));
    for (const f of Object.values(feeds)) await makeDue(ctx.store(), f.feedId);

    const pass = await pollOnce(deps());
    assert.deepEqual(
      [pass.feeds, pass.notModified, pass.updated, pass.errors, pass.newItems, pass.queued],
      [3, 1, 1, 1, 1, 1],
    );
    assert.ok(brokenNow);

    const sameRow = await feedRow(ctx.store(), feeds.same.feedId);
    assert.equal(sameRow.etag, before.same.etag, 'a 304 keeps the stored ETag');
    assert.equal(sameRow.last_modified, before.same.last_modified);
    assert.equal(sameRow.title, 'Same');
    assert.equal(sameRow.error_count, 0);
    assert.equal(sameRow.lease_owner, null);
    assert.equal(sameRow.lease_until, null);
    assert.ok(sameRow.next_fetch_at > new Date().toISOString(), 'the next fetch is later');
    assert.ok((sameRow.last_success_at ?? '') > (before.same.last_success_at ?? ''));

    assert.equal(await feedItemCount(ctx.store(), feeds.changing.feedId), 2);
    assert.equal((await queueUrls(ctx.store(), feeds.changing.accountId)).length, 2);
    assert.equal((await feedRow(ctx.store(), feeds.changing.feedId)).lease_owner, null);

    const brokenRow = await feedRow(ctx.store(), feeds.broken.feedId);
    assert.equal(brokenRow.error_count, 3);
    assert.match(brokenRow.last_error ?? '', /500/);
    assert.equal(brokenRow.last_success_at, before.broken.last_success_at, 'an error keeps the last success');
    assert.equal(brokenRow.lease_owner, null);
    assert.ok(brokenRow.next_fetch_at > new Date().toISOString(), 'backed off');

    const heldRow = await feedRow(ctx.store(), feeds.held.feedId);
    assert.equal(heldRow.lease_owner, 'other-worker');
    assert.equal(held.requests().length, 1, "another worker's feed is not fetched");
  });

  test('outcomes ready together are one write; an outcome or fetch whose lease moved writes nothing', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) {
      const served = serveFeed(server(), `/${name('together')}.xml`, { title: 'T', items: [item('t', i)] });
      ids.push((await trustedFeed(ctx.store(), served.url)).feedId);
    }
    const [a, b, c, d, e, f] = ids;
    assert.ok(a && b && c && d && e && f);
    for (const id of [a, b, c, e]) await leaseFeed(ctx.store(), id, 'me');
    await leaseFeed(ctx.store(), d, 'someone-else');
    const stored = await leaseFeed(ctx.store(), f, 'me');
    await lease(ctx.store(), f, 'someone-else', new Date(Date.now() + HOUR));
    await ctx.store().db.updateTable('feeds').set({ error_count: 4 }).where('id', '=', c).execute();

    const titleB = (await feedRow(ctx.store(), b)).title;
    const rowE0 = await feedRow(ctx.store(), e);
    const now = new Date();
    const at = now.toISOString();
    const next = new Date(now.getTime() + HOUR).toISOString();
    const { store, statements } = counted(ctx.store());
    const d2 = testRefreshDeps(store);
    const items: FeedItem[] = [
      {
        id: 'https://batch.example/new',
        url: 'https://batch.example/new',
        title: 'New',
        summary: '',
        published: now,
        image: null,
      } as FeedItem,
    ];
    const results = await Promise.all([
      recordOutcome(d2, {
        feedId: a,
        owner: 'me',
        update: { etag: '"a"', nextFetchAt: next, fetchedAt: at, error: null },
      }),
      recordOutcome(d2, {
        feedId: b,
        owner: 'me',
        update: { nextFetchAt: next, fetchedAt: at, error: null },
      }),
      recordOutcome(d2, {
        feedId: c,
        owner: 'me',
        update: { nextFetchAt: next, fetchedAt: at, error: 'down' },
      }),
      recordOutcome(d2, {
        feedId: d,
        owner: 'me',
        update: { nextFetchAt: next, fetchedAt: at, error: null },
      }),
      storeFetch(d2, {
        feed: rowE0,
        owner: 'me',
        now,
        items,
        update: { title: 'Renamed', nextFetchAt: next, fetchedAt: at, error: null },
      }),
      storeFetch(d2, {
        feed: stored,
        owner: 'me',
        now,
        items,
        update: { nextFetchAt: next, fetchedAt: at, error: null },
      }),
    ]);
    assert.deepEqual(results.slice(0, 4), [true, true, true, false]);
    assert.deepEqual(results[4], { status: 'updated', newItems: 1, queued: 1, offered: { added: 1 } });
    assert.deepEqual(results[5], { status: 'lease_lost' });
    if (ctx.engine === 'postgres') {
      // All in one transaction: the locks, the items, the subscriptions, the first fill of e's subscriber
      // (marked, and its window read), three for the queue, the outcomes. One feed alone takes as many.
      assert.ok(statements() <= 9, `${statements()} statements`);
    }

    const rowA = await feedRow(ctx.store(), a);
    assert.deepEqual(
      [rowA.etag, rowA.next_fetch_at, rowA.error_count, rowA.lease_owner],
      ['"a"', next, 0, null],
    );
    const rowB = await feedRow(ctx.store(), b);
    assert.deepEqual([rowB.last_success_at, rowB.title, rowB.lease_owner], [at, titleB, null]);
    const rowC = await feedRow(ctx.store(), c);
    assert.deepEqual([rowC.error_count, rowC.last_error, rowC.last_success_at], [5, 'down', null]);
    const rowD = await feedRow(ctx.store(), d);
    assert.deepEqual([rowD.lease_owner, rowD.last_fetched_at], ['someone-else', null]);
    const rowE = await feedRow(ctx.store(), e);
    assert.deepEqual([rowE.title, rowE.lease_owner], ['Renamed', null]);
    assert.equal(await feedItemCount(ctx.store(), e), 1);
    const rowF = await feedRow(ctx.store(), f);
    assert.deepEqual([rowF.lease_owner, rowF.last_fetched_at], ['someone-else', null]);
    assert.equal(await feedItemCount(ctx.store(), f), 0, 'nothing stored without the lease');

    // 304s alone: one statement on PostgreSQL, whatever their number.
    for (const id of [a, b]) await leaseFeed(ctx.store(), id, 'me');
    const before = statements();
    const again = await Promise.all(
      [a, b].map((feedId) =>
        recordOutcome(d2, { feedId, owner: 'me', update: { nextFetchAt: next, fetchedAt: at, error: null } }),
      ),
    );
    assert.deepEqual(again, [true, true]);
    if (ctx.engine === 'postgres') assert.equal(statements() - before, 1);
  });

  test('an outcome that cannot be written fails alone: the others of its batch are written', async () => {
    const urls: string[] = [];
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) {
      const served = serveFeed(server(), `/${name('alone')}.xml`, { title: 'A', items: [item('a', i)] });
      urls.push(served.url);
      ids.push((await trustedFeed(ctx.store(), served.url)).feedId);
      await leaseFeed(ctx.store(), ids[i] ?? 0, 'me');
    }
    const at = new Date().toISOString();
    const d2 = deps();
    const update = { nextFetchAt: at, fetchedAt: at, error: null };
    const results = await Promise.allSettled([
      recordOutcome(d2, { feedId: ids[0] ?? 0, owner: 'me', update }),
      // Moved to another feed's address: the unique URL refuses it.
      recordOutcome(d2, { feedId: ids[1] ?? 0, owner: 'me', update: { ...update, url: urls[2] } }),
      recordOutcome(d2, { feedId: ids[2] ?? 0, owner: 'me', update }),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.equal((await feedRow(ctx.store(), ids[0] ?? 0)).lease_owner, null);
    assert.equal(
      (await feedRow(ctx.store(), ids[1] ?? 0)).lease_owner,
      'me',
      'the failed one is still leased',
    );
    assert.equal((await feedRow(ctx.store(), ids[2] ?? 0)).lease_owner, null);
  });

  test("a fetch whose items cannot be stored fails alone: its batch's other fetch is stored", async () => {
    const g = await trustedFeed(
      ctx.store(),
      serveFeed(server(), `/${name('good')}.xml`, { title: 'G', items: [] }).url,
    );
    const b = await trustedFeed(
      ctx.store(),
      serveFeed(server(), `/${name('bad')}.xml`, { title: 'B', items: [] }).url,
    );
    const gRow = await leaseFeed(ctx.store(), g.feedId, 'me');
    const bRow = await leaseFeed(ctx.store(), b.feedId, 'me');
    const now = new Date();
    const update = { nextFetchAt: now.toISOString(), fetchedAt: now.toISOString(), error: null };
    const entry = (title: string, published = now): FeedItem =>
      ({
        id: `https://batch.example/${title.length}`,
        url: 'https://batch.example/x',
        title,
        summary: '',
        published,
        image: null,
      }) as FeedItem;
    // A date that cannot be written (the parser never passes one on; this stands for any failure of a
    // fetch's items in the batch's transaction: a U+0000, which PostgreSQL refused, is now stored without it).
    const d2 = deps();
    const [good, bad] = await Promise.allSettled([
      storeFetch(d2, { feed: gRow, owner: 'me', now, items: [entry('good')], update }),
      storeFetch(d2, { feed: bRow, owner: 'me', now, items: [entry('bad', new Date(NaN))], update }),
    ]);
    assert.equal(good.status, 'fulfilled');
    assert.equal(await feedItemCount(ctx.store(), g.feedId), 1);
    assert.equal((await queueUrls(ctx.store(), g.accountId)).length, 1);
    assert.equal((await feedRow(ctx.store(), g.feedId)).lease_owner, null);
    assert.equal(bad.status, 'rejected');
    assert.equal(await feedItemCount(ctx.store(), b.feedId), 0);
    assert.equal((await feedRow(ctx.store(), b.feedId)).lease_owner, 'me');
  });
});
