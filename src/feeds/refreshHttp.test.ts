import assert from 'node:assert/strict';
import { test } from 'node:test';
import { subscriptionsByAccount } from '../store/subscriptions.js';
import {
  HOUR,
  MINUTE,
  feedItemCount,
  feedPipelineSuite,
  feedRow,
  hoursAgo,
  makeDue,
  queueUrls,
  refreshNow,
  rssDocument,
  serveFeed,
  testRefreshDeps,
  trustedFeed,
} from '../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { pollOnce } from './poller.js';
import { isTidingsError } from '../errors.js';
import { subscribe } from './subscribe/subscribe.js';

/** What each HTTP answer does to a feed's row: validators, moves, gone, waiting, backing off. */

const item = (slug: string, published: Date | null = hoursAgo(1)) => ({
  link: `https://http.example/${slug}`,
  title: slug,
  published,
});

/** Milliseconds from the feed's last fetch to its next one. */
const delayOf = (f: { last_fetched_at: string | null; next_fetch_at: string }): number =>
  Date.parse(f.next_fetch_at) - Date.parse(f.last_fetched_at ?? '');

await describeEachEngine('feed refresh over HTTP', (ctx) => {
  const { server, deps } = feedPipelineSuite(ctx);

  test('the second poll is conditional, and a 304 changes nothing but the schedule', async () => {
    const feed = serveFeed(server(), '/conditional.xml', {
      title: 'Conditional',
      items: [item('c1'), item('c2')],
      validators: true,
    });
    const account = await newAccount(ctx.store());
    const { feed: first } = await subscribe(deps(), account.id, { url: feed.url });
    assert.match(first.etag ?? '', /^"[0-9a-f]{16}"$/);
    assert.notEqual(first.last_modified, null);
    const queued = await queueUrls(ctx.store(), account.id);
    assert.equal(queued.length, 2);

    const outcome = await refreshNow(deps(), first.id);
    assert.deepEqual(outcome, { status: 'not_modified' });
    const conditional = feed.requests().at(-1);
    assert.ok(conditional);
    assert.equal(conditional.headers['if-none-match'], first.etag);
    assert.equal(conditional.headers['if-modified-since'], first.last_modified);

    const after = await feedRow(ctx.store(), first.id);
    assert.equal(after.etag, first.etag);
    assert.equal(after.last_modified, first.last_modified);
    assert.equal(after.title, 'Conditional');
    assert.equal(after.last_error, null);
    assert.equal(after.error_count, 0);
    assert.ok(delayOf(after) >= 15 * MINUTE);
    assert.equal(await feedItemCount(ctx.store(), first.id), 2);
    assert.deepEqual(await queueUrls(ctx.store(), account.id), queued);

    const summary = await pollOnce(deps(), { all: true });
    assert.deepEqual([summary.feeds, summary.notModified, summary.newItems], [1, 1, 0]);

    // Changed: a 200 again, with new validators and the new item queued.
    feed.items.unshift(item('c3', new Date()));
    assert.deepEqual(await refreshNow(deps(), first.id), { status: 'updated', newItems: 1, queued: 1 });
    assert.notEqual((await feedRow(ctx.store(), first.id)).etag, first.etag);
  });

  test('a 304 that repeats no validators keeps the stored ones for the next poll', async () => {
    const etag = '"stable"';
    const lastModified = 'Tue, 01 Jul 2025 10:00:00 GMT';
    const url = server().route('/bare-304.xml', (req, res) => {
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304).end(); // RFC 9110 asks for the ETag again; not every server sends it.
        return;
      }
      res.writeHead(200, { etag, 'last-modified': lastModified }).end(rssDocument('Bare', [item('b1')]));
    });
    const { feedId } = await trustedFeed(ctx.store(), url);
    assert.equal((await refreshNow(deps(), feedId)).status, 'updated');
    assert.deepEqual(await refreshNow(deps(), feedId), { status: 'not_modified' });
    assert.deepEqual(await refreshNow(deps(), feedId), { status: 'not_modified' });
    const row = await feedRow(ctx.store(), feedId);
    assert.equal(row.etag, etag);
    assert.equal(row.last_modified, lastModified);
    const requests = server().requestsFor('/bare-304.xml');
    assert.equal(requests.length, 3);
    assert.equal(requests[2]?.headers['if-none-match'], etag);
  });

  test('a 301 moves the stored feed URL; a 302 does not', async () => {
    const moved = serveFeed(server(), '/new-home.xml', { title: 'Moved', items: [item('m1')] });
    server().route('/old-home.xml', (_req, res) => res.writeHead(301, { location: moved.path }).end());
    server().route('/visiting.xml', (_req, res) => res.writeHead(302, { location: moved.path }).end());
    const permanent = await trustedFeed(ctx.store(), server().url('/old-home.xml'));
    const temporary = await trustedFeed(ctx.store(), server().url('/visiting.xml'));

    const s = await pollOnce(deps(), { all: true });
    assert.equal(s.updated, 2);
    assert.equal((await feedRow(ctx.store(), permanent.feedId)).url, moved.url);
    assert.equal((await feedRow(ctx.store(), temporary.feedId)).url, server().url('/visiting.xml'));

    await pollOnce(deps(), { all: true });
    assert.equal(server().requestsFor('/old-home.xml').length, 1, 'the old address is not asked again');
    assert.equal(server().requestsFor('/visiting.xml').length, 2);
  });

  test('410 marks the feed gone, stops polling it, and says so in plain words', async () => {
    const url = server().route('/gone.xml', (_req, res) => res.writeHead(410).end('removed'));
    const { feedId } = await trustedFeed(ctx.store(), url);
    assert.deepEqual(await refreshNow(deps(), feedId), { status: 'gone' });
    const row = await feedRow(ctx.store(), feedId);
    assert.equal(row.status, 'gone');
    assert.equal(row.error_count, 1);
    assert.match(row.last_error ?? '', /^127\.0\.0\.1:\d+ says the feed is gone for good \(410 Gone\)\. /);
    assert.match(row.last_error ?? '', /Polling has stopped/);
    assert.equal(row.lease_owner, null);

    await makeDue(ctx.store(), feedId);
    const due = await pollOnce(deps());
    const all = await pollOnce(deps(), { all: true });
    assert.equal(due.feeds + all.feeds, 0);
    assert.equal(server().requestsFor('/gone.xml').length, 1);
  });

  test('429 and 503 with Retry-After push the next fetch at least that far', async () => {
    const inThreeHours = new Date(Date.now() + 3 * HOUR).toUTCString();
    const busy = server().route('/busy.xml', (_req, res) =>
      res.writeHead(429, { 'retry-after': '7200' }).end(),
    );
    const down = server().route('/down.xml', (_req, res) =>
      res.writeHead(503, { 'retry-after': inThreeHours }).end(),
    );
    const a = await trustedFeed(ctx.store(), busy);
    const b = await trustedFeed(ctx.store(), down);
    const s = await pollOnce(deps());
    assert.equal(s.errors, 2);

    const busyRow = await feedRow(ctx.store(), a.feedId);
    assert.ok(delayOf(busyRow) >= 2 * HOUR, busyRow.next_fetch_at);
    assert.match(busyRow.last_error ?? '', /answered 429 Too Many Requests, asking to wait 7200 s/);
    assert.equal(busyRow.error_count, 1);
    const downRow = await feedRow(ctx.store(), b.feedId);
    // The HTTP date has whole seconds: up to one less than three hours from now.
    assert.ok(Date.parse(downRow.next_fetch_at) >= Date.parse(inThreeHours) - 1000, downRow.next_fetch_at);
    assert.match(downRow.last_error ?? '', /answered 503 Service Unavailable/);
  });

  test('errors back off more each time and stay visible; a success clears them', async () => {
    let failing = true;
    const url = server().route('/flaky.xml', (_req, res) => {
      if (failing) res.writeHead(500).end('oops');
      else res.writeHead(200).end(rssDocument('Flaky', [item('f1')]));
    });
    const { feedId, accountId } = await trustedFeed(ctx.store(), url);
    const delays: number[] = [];
    for (let n = 1; n <= 4; n++) {
      const outcome = await refreshNow(deps(), feedId);
      assert.equal(outcome.status, 'error');
      const row = await feedRow(ctx.store(), feedId);
      assert.equal(row.error_count, n);
      assert.match(row.last_error ?? '', /^127\.0\.0\.1:\d+ answered 500 Internal Server Error$/);
      assert.equal(row.last_success_at, null);
      assert.ok(Date.parse(row.next_fetch_at) > Date.now());
      // 15 min doubling each time, ±20 %.
      const base = 15 * MINUTE * 2 ** (n - 1);
      assert.ok(delayOf(row) >= base * 0.8 && delayOf(row) <= base * 1.2, `${n}: ${delayOf(row)}`);
      delays.push(delayOf(row));
    }
    assert.deepEqual(
      delays,
      [...delays].sort((x, y) => x - y),
    );

    failing = false;
    assert.deepEqual(await refreshNow(deps(), feedId), { status: 'updated', newItems: 1, queued: 1 });
    const healed = await feedRow(ctx.store(), feedId);
    assert.equal(healed.last_error, null);
    assert.equal(healed.error_count, 0);
    assert.equal(healed.last_success_at, healed.last_fetched_at);
    assert.deepEqual(await queueUrls(ctx.store(), accountId), ['https://http.example/f1']);
  });

  test('subscribing keeps to the configured timeouts: an address that never answers fails in time', async () => {
    const url = server().route('/never-answers', () => undefined);
    const account = await newAccount(ctx.store());
    const started = Date.now();
    await assert.rejects(
      subscribe(testRefreshDeps(ctx.store(), { requestTimeoutMs: 500 }), account.id, { url }),
      (err: unknown) => isTidingsError(err, 'source_failed') && /took longer than 500 ms$/.test(err.message),
    );
    assert.ok(Date.now() - started < 5000);
    assert.deepEqual(await subscriptionsByAccount(ctx.store().db, account.id), []);
  });
});
