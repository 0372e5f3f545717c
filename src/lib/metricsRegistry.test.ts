import assert from 'node:assert/strict';
import { test } from 'node:test';
import { has, parseSamples, total } from '../test/metricsText.js';
import { PrometheusMetrics } from './metricsRegistry.js';

test('each PrometheusMetrics has a registry of its own: two in one process neither collide nor share counts', async () => {
  const a = new PrometheusMetrics();
  const b = new PrometheusMetrics();
  a.saved('api', 'added');
  a.saved('feed', 'added', 3);
  a.saved('feed', 'queue_full', 0);
  b.leaseLost('reader');
  const sa = parseSamples(await a.render());
  const sb = parseSamples(await b.render());
  assert.equal(total(sa, 'tidings_saves_total', { source: 'api', outcome: 'added' }), 1);
  assert.equal(total(sa, 'tidings_saves_total', { source: 'feed' }), 3);
  assert.ok(!has(sa, 'tidings_saves_total', { outcome: 'queue_full' }), 'a count of 0 adds no series');
  assert.equal(total(sb, 'tidings_saves_total'), 0);
  // Every worker's lease losses are there from the start, at 0, so that rate() sees the first one.
  assert.equal(total(sa, 'tidings_lease_losses_total', { worker: 'reader' }), 0);
  assert.equal(total(sb, 'tidings_lease_losses_total', { worker: 'reader' }), 1);
  for (const samples of [sa, sb]) {
    assert.ok(has(samples, 'process_cpu_user_seconds_total'), 'process metrics');
    assert.ok(has(samples, 'nodejs_eventloop_lag_seconds'), 'Node.js metrics');
  }
  assert.match(a.contentType, /^text\/plain; version=0\.0\.4/);
});

test('histograms count each observation under its labels; an unknown method is "other"', async () => {
  const m = new PrometheusMetrics();
  m.httpRequest({ method: 'GET', route: '/items/:id', status: 200, seconds: 0.003 });
  m.httpRequest({ method: 'PROPFIND', route: 'unmatched', status: 404, seconds: 0.001 });
  m.feedFetched('error', 'timeout', 30);
  m.feedFetched('ok', null, 0.2);
  m.digestBuilt('built', 0.05);
  m.digestEmailed('retrying', 1.5);
  m.pageRead('read', 0.8, 'queue');
  m.pageRead('read', 0.2, 'reading_list');
  const s = parseSamples(await m.render());
  const count = (name: string, labels: Record<string, string>): number => total(s, `${name}_count`, labels);
  assert.equal(count('tidings_http_request_duration_seconds', { route: '/items/:id', status: '200' }), 1);
  assert.equal(count('tidings_http_request_duration_seconds', { method: 'other', route: 'unmatched' }), 1);
  assert.equal(count('tidings_feed_fetch_duration_seconds', { outcome: 'error', reason: 'timeout' }), 1);
  assert.equal(count('tidings_feed_fetch_duration_seconds', { outcome: 'ok' }), 1);
  assert.ok(
    !s.some(
      (x) => x.name.startsWith('tidings_feed_fetch') && x.labels.outcome === 'ok' && 'reason' in x.labels,
    ),
    'a fetch that is not an error has no reason',
  );
  assert.equal(count('tidings_digest_build_duration_seconds', { outcome: 'built' }), 1);
  assert.equal(count('tidings_digest_email_duration_seconds', { outcome: 'retrying' }), 1);
  assert.equal(count('tidings_page_read_duration_seconds', { outcome: 'read' }), 2);
  assert.equal(count('tidings_page_read_duration_seconds', { outcome: 'read', list: 'queue' }), 1);
  assert.equal(count('tidings_page_read_duration_seconds', { outcome: 'read', list: 'reading_list' }), 1);
  assert.equal(total(s, 'tidings_page_read_duration_seconds_sum', { list: 'queue' }), 0.8);
});

test('scrape-time gauges: one probe call per scrape for the gauges that share it; a failed probe leaves its gauges out', async () => {
  let queueCalls = 0;
  let feedsFail = false;
  const failures: string[] = [];
  const m = new PrometheusMetrics({
    probes: {
      queues: () => {
        queueCalls++;
        return Promise.resolve({ items: 7, longest: 5 });
      },
      feeds: () =>
        feedsFail ? Promise.reject(new Error('database down')) : Promise.resolve({ due: 4, overdue: 1 }),
      pool: () => ({ total: 5, idle: 3, waiting: 2 }),
      pendingSaves: () => 6,
    },
    onProbeError: (probe) => failures.push(probe),
  });
  let s = parseSamples(await m.render());
  assert.equal(queueCalls, 1, 'both queue gauges came from one query');
  assert.deepEqual(
    [
      total(s, 'tidings_queue_items'),
      total(s, 'tidings_queue_items_longest'),
      total(s, 'tidings_feeds_due'),
      total(s, 'tidings_feeds_overdue'),
      total(s, 'tidings_db_pool_connections', { state: 'in_use' }),
      total(s, 'tidings_db_pool_connections', { state: 'idle' }),
      total(s, 'tidings_db_pool_waiting'),
      total(s, 'tidings_save_writer_pending'),
    ],
    [7, 5, 4, 1, 2, 3, 2, 6],
  );
  feedsFail = true;
  s = parseSamples(await m.render());
  assert.equal(queueCalls, 2);
  assert.deepEqual(failures, ['feeds']);
  assert.ok(!has(s, 'tidings_feeds_due') && !has(s, 'tidings_feeds_overdue'), 'no stale value is shown');
  assert.equal(total(s, 'tidings_queue_items'), 7, 'the other gauges still answer');
});

test('without a pool (SQLite) the pool gauges are left out', async () => {
  const s = parseSamples(await new PrometheusMetrics({ probes: { pool: () => null } }).render());
  assert.ok(!has(s, 'tidings_db_pool_connections'));
  assert.ok(!has(s, 'tidings_db_pool_waiting'));
});
