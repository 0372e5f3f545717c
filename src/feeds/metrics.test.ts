import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PrometheusMetrics } from '../lib/metricsRegistry.js';
import {
  feedPipelineSuite,
  feedRow,
  hoursAgo,
  makeDue,
  refreshNow,
  serveFeed,
  trustedFeed,
} from '../test/feedFixtures.js';
import { describeEachEngine } from '../test/harness.js';
import { parseSamples, total } from '../test/metricsText.js';
import { refreshFeed } from './refresh.js';

/** Each fetch of a feed is counted once, by outcome and reason; the items it queued as saves from feeds. */

await describeEachEngine('feed metrics', (ctx) => {
  const { server, deps } = feedPipelineSuite(ctx);

  test('fetches by outcome and reason, feed saves once committed, lease losses', async () => {
    const metrics = new PrometheusMetrics();
    const d = { ...deps(), metrics };
    const feed = serveFeed(server(), '/counted.xml', {
      title: 'Counted',
      validators: true,
      items: [
        { link: 'https://counted.example/1', title: 'One', published: hoursAgo(2) },
        { link: 'https://counted.example/2', title: 'Two', published: hoursAgo(1) },
      ],
    });
    server().route('/page.html', (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>hi'),
    );
    server().route('/missing.xml', (_req, res) => res.writeHead(404).end());
    const counted = await trustedFeed(ctx.store(), feed.url);
    const page = await trustedFeed(ctx.store(), server().url('/page.html'));
    const missing = await trustedFeed(ctx.store(), server().url('/missing.xml'));

    assert.equal((await refreshNow(d, counted.feedId)).status, 'updated');
    await makeDue(ctx.store(), counted.feedId);
    assert.equal((await refreshNow(d, counted.feedId)).status, 'not_modified');
    const notAFeed = await refreshNow(d, page.feedId);
    assert.deepEqual([notAFeed.status, 'reason' in notAFeed && notAFeed.reason], ['error', 'not_a_feed']);
    const gone = await refreshNow(d, missing.feedId);
    assert.deepEqual([gone.status, 'reason' in gone && gone.reason], ['error', 'http_status']);
    // Refreshed by a worker that does not hold its lease: nothing written, a lease lost.
    const stolen = await refreshFeed(d, await feedRow(ctx.store(), counted.feedId), 'not-the-owner');
    assert.equal(stolen.status, 'lease_lost');

    const s = parseSamples(await metrics.render());
    const fetches = (labels: Record<string, string>): number =>
      total(s, 'tidings_feed_fetch_duration_seconds_count', labels);
    assert.deepEqual(
      [
        fetches({ outcome: 'ok' }),
        fetches({ outcome: 'not_modified' }),
        fetches({ outcome: 'error', reason: 'not_a_feed' }),
        fetches({ outcome: 'error', reason: 'http_status' }),
        fetches({ outcome: 'lease_lost' }),
        fetches({}),
      ],
      [1, 1, 1, 1, 1, 5],
    );
    assert.equal(total(s, 'tidings_saves_total', { source: 'feed', outcome: 'added' }), 2);
    assert.equal(total(s, 'tidings_saves_total'), 2);
    assert.equal(total(s, 'tidings_lease_losses_total', { worker: 'poller' }), 1);
  });
});
