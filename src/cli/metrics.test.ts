/**
 * `tidings serve` with TIDINGS_METRICS as a real process on a real database: real work (a save through the
 * API, a loopback feed polled, a digest built and emailed, a page read), then a scrape of its metrics
 * listener; and without TIDINGS_METRICS, no metrics anywhere.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { subscribe } from '../feeds/subscribe/subscribe.js';
import { type Store, openStore } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';
import { ENGINES, type TestDatabase, createTestDatabase, postgresSkipReason } from '../test/databases.js';
import { saveUrl, setDueAt, setEmail } from '../test/digestPipeline.js';
import { hoursAgo, serveFeed, testRefreshDeps, waitFor } from '../test/feedFixtures.js';
import { FeedServer } from '../test/feedServer.js';
import { newAccount } from '../test/harness.js';
import { type Sample, has, labelValues, parseSamples, total } from '../test/metricsText.js';
import {
  DIST_MAIN,
  type ServerProcess,
  assertBuilt,
  childEnv,
  exitWithin,
  freePort,
  request,
  startServer,
  tryConnect,
} from '../test/process.js';
import { SmtpTestServer } from '../test/smtpServer.js';

assertBuilt();
const pgSkip = await postgresSkipReason();

const ARTICLE_HTML =
  '<!doctype html><html lang="en"><head><title>Metered tides</title></head><body><article><h1>Metered tides</h1>' +
  '<p>The tide comes in twice a day, and the sea pulls back as the moon passes over.</p>'.repeat(12) +
  '</article></body></html>';

/** A process starts slowly on a busy machine (2 cores shared with other test runs): 20 s was seen to miss. */
const START_TIMEOUT_MS = 60_000;

/** The metrics URL the "listening" line gives. */
function metricsUrl(server: ServerProcess): string {
  for (const line of server.stderr().split('\n')) {
    try {
      const fields = JSON.parse(line) as { msg?: unknown; metrics?: unknown };
      if (fields.msg === 'listening' && typeof fields.metrics === 'string') return fields.metrics;
    } catch {
      // not a log line
    }
  }
  throw new Error(`no "listening" line with metrics:\n${server.stderr()}`);
}

for (const engine of ENGINES) {
  describe(
    `tidings serve: Prometheus metrics [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    () => {
      let db: TestDatabase;
      let store: Store;
      let web: FeedServer;
      let smtp: SmtpTestServer;
      const servers: ServerProcess[] = [];

      before(async () => {
        db = await createTestDatabase(engine);
        store = openStore(db.url);
        await migrateToLatest(store);
        web = await FeedServer.start('127.0.0.1');
        web.route('/article', (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE_HTML);
        });
        smtp = await SmtpTestServer.start();
      });
      after(async () => {
        await Promise.all(servers.map((s) => s.stop()));
        await smtp.close();
        await web.close();
        await store.close();
        await db.drop();
      });

      test('real work moves the counters; no label carries a key, an account name or a URL', async () => {
        // Before the start: a feed due and never fetched, a saved page not yet read, a digest due by email.
        const reader = await newAccount(store);
        const feed = serveFeed(web, '/feed.xml', {
          title: 'Metered',
          items: [{ link: 'https://metered.example/post', title: 'A post', published: hoursAgo(1) }],
        });
        await subscribe(testRefreshDeps(store), reader.id, { url: feed.url, trusted: true });
        await saveUrl(store, reader.id, web.url('/article'), 'To read');
        const mailed = await newAccount(store);
        await saveUrl(store, mailed.id, web.url('/article?for=digest'), 'For the digest');
        await setEmail(store, mailed.id, 'mailed@news.example');
        await setDueAt(store, mailed.id, new Date(Date.now() - 60_000).toISOString());
        const names = (await store.db.selectFrom('accounts').select('name').execute()).map((r) => r.name);

        const server = await startServer({
          databaseUrl: db.url,
          timeoutMs: START_TIMEOUT_MS,
          env: {
            TIDINGS_METRICS: 'true',
            TIDINGS_METRICS_PORT: String(await freePort()),
            TIDINGS_ALLOW_PRIVATE_NETWORKS: 'true',
            TIDINGS_SMTP_URL: smtp.url(),
            TIDINGS_MAIL_FROM: 'Tidings <digest@tidings.example>',
          },
        });
        servers.push(server);
        const url = metricsUrl(server);
        assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/, 'on loopback, by default');

        const api = `${server.baseUrl}/api/v1/articles?apiKey=${reader.apiKey}`;
        const saved = await request(api, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ url: 'https://metered.example/saved' }),
        });
        assert.equal(saved.status, 200, saved.body);
        assert.equal((await request(api)).status, 200);
        const onPublic = await request(`${server.baseUrl}/metrics`);
        assert.equal(onPublic.status, 404, 'never on the public listener');
        assert.equal((JSON.parse(onPublic.body) as { code: number }).code, 40401);

        let samples: Sample[] = [];
        const scraped = async (): Promise<boolean> => {
          const res = await request(url);
          assert.equal(res.status, 200, res.body);
          samples = parseSamples(res.body);
          const count = (name: string, labels: Record<string, string>): number =>
            total(samples, `${name}_count`, labels);
          return (
            count('tidings_feed_fetch_duration_seconds', { outcome: 'ok' }) >= 1 &&
            count('tidings_page_read_duration_seconds', { outcome: 'read' }) >= 1 &&
            count('tidings_digest_build_duration_seconds', { outcome: 'built' }) >= 1 &&
            count('tidings_digest_email_duration_seconds', { outcome: 'sent' }) >= 1
          );
        };
        await waitFor('the workers’ counts', scraped, 20_000);
        assert.equal(smtp.messages.length, 1, 'the digest was emailed');
        assert.ok(web.requestsFor('/article').length >= 1, 'the page was fetched');

        assert.equal(total(samples, 'tidings_saves_total', { source: 'api', outcome: 'added' }), 1);
        assert.equal(total(samples, 'tidings_saves_total', { source: 'feed', outcome: 'added' }), 1);
        const requests = (labels: Record<string, string>): number =>
          total(samples, 'tidings_http_request_duration_seconds_count', labels);
        assert.equal(requests({ method: 'POST', route: '/api/v1/articles', status: '200' }), 1);
        assert.equal(requests({ method: 'GET', route: '/api/v1/articles', status: '200' }), 1);
        assert.equal(requests({ route: 'unmatched', status: '404' }), 1);
        assert.ok(total(samples, 'tidings_http_request_duration_seconds_sum') > 0, 'latencies are recorded');
        assert.equal(total(samples, 'tidings_lease_losses_total'), 0);
        for (const name of [
          'tidings_queue_items',
          'tidings_queue_items_longest',
          'tidings_feeds_due',
          'tidings_feeds_overdue',
          'tidings_save_writer_pending',
          'process_resident_memory_bytes',
          'nodejs_eventloop_lag_seconds',
        ])
          assert.ok(has(samples, name), `${name} is exposed`);
        assert.ok(total(samples, 'tidings_queue_items') >= 2, 'the reader’s feed item and API save wait');
        assert.equal(has(samples, 'tidings_db_pool_connections'), engine === 'postgres');

        const host = new URL(web.url('/')).host;
        const secrets = [
          reader.apiKey,
          mailed.apiKey,
          reader.apiKey.slice(0, 12),
          ...names,
          '://',
          host,
          'example',
        ];
        for (const value of labelValues(samples)) {
          for (const secret of secrets)
            assert.ok(!value.includes(secret), `a label value holds ${secret}: ${value}`);
        }
        server.child.kill('SIGTERM');
        assert.deepEqual(await exitWithin(server, 10_000), { code: 0, signal: null }, server.stderr());
        assert.equal(
          await tryConnect(Number(new URL(url).port)),
          'refused',
          'the metrics listener closed too',
        );
      });

      test('without TIDINGS_METRICS: /metrics is 404 JSON and nothing listens for metrics', async () => {
        const port = await freePort();
        const server = await startServer({
          databaseUrl: db.url,
          timeoutMs: START_TIMEOUT_MS,
          env: { TIDINGS_WORKER: 'false', TIDINGS_METRICS_PORT: String(port) },
        });
        servers.push(server);
        const res = await request(`${server.baseUrl}/metrics`);
        assert.equal(res.status, 404);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        assert.deepEqual(Object.keys(JSON.parse(res.body) as object).sort(), ['code', 'message']);
        assert.equal(await tryConnect(port), 'refused');
        assert.match(server.stderr(), /"msg":"listening"/);
        assert.match(server.stderr(), /"metrics":"off"/);
        server.child.kill('SIGTERM');
        assert.equal((await exitWithin(server, 10_000)).code, 0);
      });
    },
  );
}

test('tidings worker with TIDINGS_METRICS serves its own metrics, and stops them on SIGTERM', async () => {
  const db = await createTestDatabase('sqlite');
  const child = spawn(process.execPath, [DIST_MAIN, 'worker'], {
    env: childEnv({
      DATABASE_URL: db.url,
      LOG_LEVEL: 'info',
      TIDINGS_METRICS: 'true',
      TIDINGS_METRICS_PORT: String(await freePort()),
      TIDINGS_METRICS_TOKEN: 'worker-metrics-token-42',
    }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const exited = once(child, 'close').then(([code]) => code as number | null);
  try {
    await waitFor(
      'the worker to start',
      () => Promise.resolve(stderr.includes('"msg":"worker started"')),
      START_TIMEOUT_MS,
    );
    const url = /"metrics":"([^"]+)"/.exec(stderr)?.[1];
    assert.ok(url !== undefined, stderr);
    assert.equal((await request(url)).status, 401, 'the token is asked for');
    const res = await request(url, { headers: { authorization: 'Bearer worker-metrics-token-42' } });
    assert.equal(res.status, 200, res.body);
    const samples = parseSamples(res.body);
    assert.ok(has(samples, 'process_cpu_user_seconds_total'));
    assert.ok(has(samples, 'tidings_feeds_due'));
    assert.ok(!stderr.includes('worker-metrics-token-42'), 'the token is never logged');
    child.kill('SIGTERM');
    assert.equal(await exited, 0, stderr);
    assert.equal(await tryConnect(Number(new URL(url).port)), 'refused');
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await db.drop();
  }
});
