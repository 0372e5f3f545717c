import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useFeedServer } from '../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { articlePage, deepDivs, manyNodes, mixedNesting } from '../test/hostilePages.js';
import { PAGE_TEST_HOST, pageOf, saveUrl, testReaderDeps } from '../test/pageFixtures.js';
import { enrichOnce } from './enrich.js';
import { LIMIT_REASONS } from './limits.js';

await describeEachEngine('pages past a limit', (ctx) => {
  const PAGES = {
    '/deep-divs': deepDivs(),
    '/mixed-nesting': mixedNesting(),
    '/many-nodes': manyNodes(),
    '/article': articlePage(1),
  };
  const server = useFeedServer(PAGE_TEST_HOST, (s) => {
    for (const [path, body] of Object.entries(PAGES)) {
      s.route(path, (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
      });
    }
  });

  test('fail at once with the reason, are never tried again, and the other pages of the pass are read', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    const urls = Object.keys(PAGES).map((path) => server().url(path));
    for (const url of urls) await saveUrl(store, account.id, url);
    const deps = testReaderDeps(store);
    const summary = await enrichOnce(deps, { accountId: account.id });
    assert.deepEqual([summary.pages, summary.read, summary.failed, summary.retried], [4, 1, 3, 0]);

    const [deep, mixed, many, article] = await Promise.all(urls.map((url) => pageOf(store, account.id, url)));
    const failed = [deep, mixed, many].map((p) => [p?.state, p?.error, p?.next_attempt_at, p?.http_status]);
    assert.deepEqual(failed, [
      ['failed', LIMIT_REASONS.nesting, null, 200],
      ['failed', LIMIT_REASONS.nesting, null, 200],
      ['failed', LIMIT_REASONS.elements, null, 200],
    ]);
    assert.deepEqual([article?.state, article?.title], ['read', 'Article 1']);

    // A later pass, even long after, reads none of them again.
    const later = testReaderDeps(store, { now: () => new Date(Date.now() + 30 * 24 * 3_600_000) });
    assert.equal((await enrichOnce(later, { accountId: account.id })).pages, 0);
    for (const path of Object.keys(PAGES)) assert.equal(server().requestsFor(path).length, 1, path);
  });
});
