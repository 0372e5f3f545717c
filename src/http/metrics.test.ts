import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createMetrics } from '../cli/metrics.js';
import { loadConfig } from '../config.js';
import type { PrometheusMetrics } from '../lib/metricsRegistry.js';
import { trustedFeed } from '../test/feedFixtures.js';
import { describeEachEngine, newAccount, silentLogger } from '../test/harness.js';
import { type Sample, has, labelValues, parseSamples, total } from '../test/metricsText.js';
import { WebClient } from '../test/webClient.js';
import { buildMetricsServer } from './metricsServer.js';
import { buildServer } from './server.js';

/** The server's metrics in process: requests by route pattern, saves by source, the scrape-time gauges. */

const TOKEN = 'metrics-token-0123456789';

await describeEachEngine('metrics of the HTTP server', (ctx) => {
  let metrics: PrometheusMetrics;
  let app: FastifyInstance;
  let scraper: FastifyInstance;
  const scrape = async (): Promise<Sample[]> => {
    const res = await scraper.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    return parseSamples(res.body);
  };

  before(async () => {
    const config = loadConfig({ TIDINGS_METRICS: 'true', TIDINGS_METRICS_TOKEN: TOKEN });
    assert.ok(config.metrics !== null);
    const made = await createMetrics(config, ctx.store(), silentLogger);
    assert.ok(made !== null);
    metrics = made;
    app = buildServer({
      config: { trustProxy: false, queueLimit: 10_000, baseUrl: 'http://127.0.0.1:8080' },
      store: ctx.store(),
      logger: silentLogger,
      metrics,
    });
    scraper = buildMetricsServer({ metrics, token: config.metrics.token, logger: silentLogger });
    await Promise.all([app.ready(), scraper.ready()]);
  });
  after(async () => {
    await app.close();
    await scraper.close();
  });

  test('requests are counted by route pattern and status, saves by source and outcome, no label holds a secret', async () => {
    const account = await newAccount(ctx.store());
    const api = `/api/v1/articles?apiKey=${account.apiKey}`;
    const post = (url: string, headers: Record<string, string> = {}) =>
      app.inject({
        method: 'POST',
        url: api,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        payload: `url=${encodeURIComponent(url)}`,
      });
    assert.equal((await post('https://metrics.example/one')).statusCode, 200);
    assert.equal((await post('https://metrics.example/one')).statusCode, 200);
    assert.equal(
      (await post('https://metrics.example/two', { origin: 'https://news.example' })).statusCode,
      200,
    );
    assert.equal((await post('ftp://metrics.example/')).statusCode, 400);
    assert.equal((await app.inject(`/api?api_key=${account.apiKey}`)).statusCode, 200);
    assert.equal((await app.inject(`/items/12345?token=${account.apiKey}`)).statusCode, 404);
    assert.equal((await app.inject(`/nowhere/${account.apiKey}`)).statusCode, 404);
    const web = new WebClient(app);
    await web.signIn(account.apiKey);
    assert.equal((await web.post('/queue', { url: 'https://metrics.example/web' })).statusCode, 303);

    const s = await scrape();
    const requests = (labels: Record<string, string>): number =>
      total(s, 'tidings_http_request_duration_seconds_count', labels);
    assert.equal(requests({ method: 'POST', route: '/api/v1/articles', status: '200' }), 3);
    assert.equal(requests({ method: 'POST', route: '/api/v1/articles', status: '400' }), 1);
    assert.equal(requests({ method: 'GET', route: '/api', status: '200' }), 1);
    assert.equal(requests({ route: '/items/:id', status: '404' }), 1);
    assert.equal(requests({ route: 'unmatched', status: '404' }), 1);
    assert.equal(requests({ method: 'POST', route: '/queue', status: '303' }), 1);
    const saves = (source: string, outcome: string): number =>
      total(s, 'tidings_saves_total', { source, outcome });
    assert.deepEqual(
      [
        saves('api', 'added'),
        saves('api', 'already_queued'),
        saves('bookmarklet', 'added'),
        saves('api', 'url_invalid'),
        saves('web', 'added'),
      ],
      [1, 1, 1, 1, 1],
    );
    const name = (
      await ctx
        .store()
        .db.selectFrom('accounts')
        .select('name')
        .where('id', '=', account.id)
        .executeTakeFirstOrThrow()
    ).name;
    for (const value of labelValues(s)) {
      for (const secret of [
        account.apiKey,
        account.apiKey.slice(0, 12),
        name,
        'metrics.example',
        '://',
        '12345',
      ])
        assert.ok(!value.includes(secret), `a label value holds ${secret}: ${value}`);
    }
  });

  test('the gauges read at scrape time: queues, feeds due and overdue, the pool, pending saves', async () => {
    const before = await scrape();
    const items = total(before, 'tidings_queue_items');
    const a = await newAccount(ctx.store());
    const b = await newAccount(ctx.store());
    const save = (key: string, url: string) =>
      app.inject({ method: 'POST', url: `/api?api_key=${key}`, payload: { url } });
    for (const n of [1, 2, 3, 4, 5, 6, 7]) await save(a.apiKey, `https://gauges.example/${n}`);
    await save(b.apiKey, 'https://gauges.example/b');
    const { feedId } = await trustedFeed(ctx.store(), 'https://gauges.example/feed.xml');
    const { feedId: late } = await trustedFeed(ctx.store(), 'https://gauges.example/late.xml');
    await ctx
      .store()
      .db.updateTable('feeds')
      .set({ next_fetch_at: new Date(Date.now() + 3_600_000).toISOString() })
      .where('id', '=', feedId)
      .execute();
    await ctx
      .store()
      .db.updateTable('feeds')
      .set({ next_fetch_at: new Date(Date.now() - 600_000).toISOString() })
      .where('id', '=', late)
      .execute();

    const s = await scrape();
    assert.equal(total(s, 'tidings_queue_items'), items + 8);
    assert.ok(total(s, 'tidings_queue_items_longest') >= 7);
    assert.ok(total(s, 'tidings_feeds_due') >= 1);
    assert.ok(total(s, 'tidings_feeds_overdue') >= 1);
    assert.ok(total(s, 'tidings_feeds_due') >= total(s, 'tidings_feeds_overdue'));
    assert.equal(total(s, 'tidings_save_writer_pending'), 0, 'every save was answered');
    if (ctx.engine === 'postgres') {
      assert.ok(has(s, 'tidings_db_pool_connections', { state: 'idle' }));
      assert.ok(total(s, 'tidings_db_pool_connections') >= 1, 'the pool holds a connection');
      assert.ok(has(s, 'tidings_db_pool_waiting'));
    } else {
      assert.ok(!has(s, 'tidings_db_pool_connections'), 'SQLite has no pool');
    }
  });

  test('the metrics listener: a bearer token when configured, 404 JSON elsewhere', async () => {
    const none = await scraper.inject('/metrics');
    assert.equal(none.statusCode, 401);
    assert.equal(none.json<{ code: number }>().code, 40101);
    assert.equal(none.headers['www-authenticate'], 'Bearer');
    const wrong = await scraper.inject({
      url: '/metrics',
      headers: { authorization: 'Bearer not-the-token-at-all' },
    });
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.json<{ code: number }>().code, 40102);
    const elsewhere = await scraper.inject('/');
    assert.equal(elsewhere.statusCode, 404);
    assert.deepEqual(Object.keys(elsewhere.json<object>()).sort(), ['code', 'message']);
    const open = buildMetricsServer({ metrics, token: null, logger: silentLogger });
    try {
      assert.equal((await open.inject('/metrics')).statusCode, 200, 'no token configured: none asked for');
    } finally {
      await open.close();
    }
  });

  test('a server without metrics has no /metrics: 404 JSON', async () => {
    const plain = buildServer({
      config: { trustProxy: false, queueLimit: 10_000, baseUrl: 'http://127.0.0.1:8080' },
      store: ctx.store(),
      logger: silentLogger,
    });
    try {
      const res = await plain.inject('/metrics');
      assert.equal(res.statusCode, 404);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.equal(res.json<{ code: number }>().code, 40401);
    } finally {
      await plain.close();
    }
  });
});
