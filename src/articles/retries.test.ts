import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { test } from 'node:test';
import { useFeedServer } from '../test/feedFixtures.js';
import { closedPort } from '../test/feedServer.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { PAGE_TEST_HOST, pageOf, saveUrl, testClock, testReaderDeps } from '../test/pageFixtures.js';
import { enrichOnce } from './enrich.js';
import { MAX_PAGE_ATTEMPTS } from './retry.js';

/** Failures: permanent ones fail at once, temporary ones are retried with backoff, a bounded number of times. */

const ok = (res: ServerResponse): void => {
  res
    .writeHead(200, { 'content-type': 'text/html' })
    .end('<title>At last</title><p>Read on the second try.</p>');
};

await describeEachEngine('page reader failures', (ctx) => {
  let calls429 = 0;
  const server = useFeedServer(PAGE_TEST_HOST, (s) => {
    s.route('/missing', (_req, res) => res.writeHead(404).end('not here'));
    s.route('/removed', (_req, res) => res.writeHead(410).end('gone'));
    s.route('/busy', (_req, res) => {
      if (++calls429 === 1) res.writeHead(429, { 'retry-after': '120' }).end();
      else ok(res);
    });
    s.route('/silent', () => undefined); // never answers
  });

  async function saved(path: string): Promise<{ accountId: number; url: string }> {
    const account = await newAccount(ctx.store());
    const url = path.startsWith('http') ? path : server().url(path);
    await saveUrl(ctx.store(), account.id, url);
    return { accountId: account.id, url };
  }

  test('404 and 410 fail at once, with the status and why, and are not fetched again', async () => {
    for (const [path, status] of [
      ['/missing', 404],
      ['/removed', 410],
    ] as const) {
      const { accountId, url } = await saved(path);
      const clock = testClock();
      const deps = testReaderDeps(ctx.store(), { now: clock.now });
      const summary = await enrichOnce(deps, { accountId });
      assert.deepEqual([summary.pages, summary.failed, summary.retried], [1, 1, 0]);
      const page = await pageOf(ctx.store(), accountId, url);
      assert.deepEqual(
        [page.state, page.http_status, page.attempts, page.next_attempt_at],
        ['failed', status, 1, null],
      );
      assert.match(page.error ?? '', new RegExp(`answered ${status}|${status} Gone`));
      clock.advance(30 * 24 * 3_600_000);
      assert.equal((await enrichOnce(deps, { accountId })).pages, 0);
      assert.equal(server().requestsFor(path).length, 1);
    }
  });

  test('429 with Retry-After: tried again when the server asked, then read', async () => {
    const { accountId, url } = await saved('/busy');
    const clock = testClock();
    const deps = testReaderDeps(ctx.store(), { now: clock.now });
    const first = await enrichOnce(deps, { accountId });
    assert.deepEqual([first.retried, first.read], [1, 0]);
    let page = await pageOf(ctx.store(), accountId, url);
    assert.deepEqual([page.state, page.http_status], ['pending', 429]);
    assert.equal(page.next_attempt_at, new Date(clock.now().getTime() + 120_000).toISOString());
    assert.match(page.error ?? '', /429 Too Many Requests, asking to wait 120 s/);

    clock.advance(119_000);
    assert.equal((await enrichOnce(deps, { accountId })).pages, 0, 'not before the time the server asked');
    clock.advance(1_000);
    const second = await enrichOnce(deps, { accountId });
    assert.equal(second.read, 1);
    page = await pageOf(ctx.store(), accountId, url);
    assert.deepEqual([page.state, page.title, page.attempts, page.error], ['read', 'At last', 2, null]);
    assert.equal(server().requestsFor('/busy').length, 2);
  });

  test('a page that never answers times out, is retried with growing waits, then fails after a bounded number of attempts', async () => {
    const { accountId, url } = await saved('/silent');
    const clock = testClock();
    const deps = testReaderDeps(ctx.store(), { now: clock.now, requestTimeoutMs: 200 });
    const waits: number[] = [];
    for (let attempt = 1; attempt <= MAX_PAGE_ATTEMPTS; attempt++) {
      const summary = await enrichOnce(deps, { accountId });
      const page = await pageOf(ctx.store(), accountId, url);
      assert.equal(page.attempts, attempt);
      assert.match(page.error ?? '', /took longer than 200 ms/);
      if (attempt < MAX_PAGE_ATTEMPTS) {
        assert.deepEqual([summary.retried, page.state], [1, 'pending']);
        const wait = Date.parse(page.next_attempt_at ?? '') - clock.now().getTime();
        waits.push(wait);
        clock.advance(wait);
      } else {
        assert.deepEqual([summary.failed, page.state, page.next_attempt_at], [1, 'failed', null]);
        assert.match(page.error ?? '', /gave up after 5 attempts/);
      }
    }
    assert.equal(server().requestsFor('/silent').length, MAX_PAGE_ATTEMPTS);
    // Exponential: each wait twice the one before (the test's jitter is fixed at its middle).
    assert.deepEqual(waits, [120_000, 240_000, 480_000, 960_000]);
  });

  test('a connection refused is temporary too; a redirect to a private address is refused at once', async () => {
    const port = await closedPort(PAGE_TEST_HOST);
    const refused = await saved(`http://${PAGE_TEST_HOST}:${port}/nothing`);
    const clock = testClock();
    const deps = testReaderDeps(ctx.store(), { now: clock.now });
    assert.equal((await enrichOnce(deps, { accountId: refused.accountId })).retried, 1);
    assert.equal((await pageOf(ctx.store(), refused.accountId, refused.url)).state, 'pending');

    // 127.0.0.1 is a private address the test policy refuses (only the page server's 127.0.0.2 is allowed).
    const inside = server().route('/to-inside', (_req, res) =>
      res.writeHead(302, { location: `http://127.0.0.1:${port}/admin` }).end(),
    );
    const redirected = await saved(inside);
    const summary = await enrichOnce(deps, { accountId: redirected.accountId });
    assert.deepEqual([summary.failed, summary.retried], [1, 0]);
    const page = await pageOf(ctx.store(), redirected.accountId, inside);
    assert.deepEqual([page.state, page.attempts, page.http_status], ['failed', 1, null]);
    assert.match(page.error ?? '', /127\.0\.0\.1/);
    assert.match(page.error ?? '', /loopback|private/);
  });
});
