import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  FETCH_TEST_HOST,
  fetchOutcome as outcome,
  fetchTestOptions as options,
  useFeedServer,
} from '../test/feedFixtures.js';
import { FEED_USER_AGENT, fetchFeed } from './fetchFeed.js';

const server = useFeedServer(FETCH_TEST_HOST);

test('a feed is asked for as Tidings, feed formats first; a configured User-Agent replaces the default', async () => {
  const url = server().route('/feed.xml', (_req, res) => res.end('<rss/>'));
  assert.equal(outcome(await fetchFeed(url, options)), 'ok');
  assert.equal(outcome(await fetchFeed(url, { ...options, userAgent: 'Custom/1' })), 'ok');
  const [first, second] = server().requestsFor('/feed.xml');
  assert.ok(first !== undefined && second !== undefined);
  assert.equal(first.headers['user-agent'], FEED_USER_AGENT);
  assert.match(
    FEED_USER_AGENT,
    /^Tidings\/[\d.]+ \(\+https:\/\/github\.com\/tidings\/tidings; feed fetcher\)$/,
  );
  assert.match(first.headers.accept ?? '', /^application\/rss\+xml, application\/atom\+xml/);
  assert.equal(second.headers['user-agent'], 'Custom/1');
});

test("the client's messages name the feed", async () => {
  const gone = server().route('/gone.xml', (_req, res) => res.writeHead(410).end('removed'));
  const big = server().route('/big.xml', (_req, res) => res.end('x'.repeat(2000)));
  const zstd = server().route('/zstd.xml', (_req, res) => {
    res.writeHead(200, { 'content-encoding': 'zstd' }).end('whatever');
  });
  const host = new URL(gone).host;
  const goneResult = await fetchFeed(gone, options);
  assert.ok(goneResult.kind === 'gone', outcome(goneResult));
  assert.equal(goneResult.message, `${host} says the feed is gone for good (410 Gone)`);
  const bigResult = await fetchFeed(big, { ...options, maxBytes: 1000 });
  assert.ok(bigResult.kind === 'error', outcome(bigResult));
  assert.equal(bigResult.message, 'the feed is larger than 1000 bytes, the most Tidings reads');
  const zstdResult = await fetchFeed(zstd, options);
  assert.ok(zstdResult.kind === 'error', outcome(zstdResult));
  assert.equal(zstdResult.message, 'the feed is compressed as "zstd", which Tidings cannot read');
  const withPassword = await fetchFeed(gone.replace('http://', 'http://user:secret@'), options);
  assert.ok(withPassword.kind === 'error', outcome(withPassword));
  assert.equal(withPassword.message, 'feed URLs with a user name or password are not supported');
});
