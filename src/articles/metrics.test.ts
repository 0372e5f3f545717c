import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PrometheusMetrics } from '../lib/metricsRegistry.js';
import { useFeedServer } from '../test/feedFixtures.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { parseSamples, total } from '../test/metricsText.js';
import { PAGE_TEST_HOST, pageFixture, saveUrl, testReaderDeps } from '../test/pageFixtures.js';
import { enrichOnce } from './enrich.js';

/** Each page the reader reads is counted once, by outcome, with its duration. */

await describeEachEngine('page reader metrics', (ctx) => {
  const server = useFeedServer(PAGE_TEST_HOST, (s) => {
    s.route('/og-rich', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pageFixture('og-rich.html'));
    });
    s.route('/gone', (_req, res) => res.writeHead(410).end());
    s.route('/busy', (_req, res) => res.writeHead(503).end());
  });

  test('pages read, failed and to retry', async () => {
    const metrics = new PrometheusMetrics();
    const account = await newAccount(ctx.store());
    for (const path of ['/og-rich', '/gone', '/busy'])
      await saveUrl(ctx.store(), account.id, server().url(path));
    const summary = await enrichOnce({ ...testReaderDeps(ctx.store()), metrics }, { accountId: account.id });
    assert.deepEqual([summary.read, summary.failed, summary.retried], [1, 1, 1]);

    const s = parseSamples(await metrics.render());
    const reads = (outcome: string): number =>
      total(s, 'tidings_page_read_duration_seconds_count', { outcome });
    assert.deepEqual([reads('read'), reads('failed'), reads('retry')], [1, 1, 1]);
    assert.ok(total(s, 'tidings_page_read_duration_seconds_sum') > 0);
  });
});
