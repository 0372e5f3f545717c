import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  FETCH_TEST_HOST,
  fetchOutcome as outcome,
  fetchTestOptions as options,
  useFeedServer,
} from '../test/feedFixtures.js';
import { fetchUrl } from './fetch.js';

const server = useFeedServer(FETCH_TEST_HOST, (s) => s.route('/feed.xml', (_req, res) => res.end('<rss/>')));

/** Routes `/{name}/0` → `/{name}/1` → … → /feed.xml, hop i answering statuses[i]; returns the first URL. */
function chain(name: string, statuses: readonly number[]): string {
  statuses.forEach((status, i) => {
    const next = i + 1 === statuses.length ? '/feed.xml' : `/${name}/${i + 1}`;
    server().route(`/${name}/${i}`, (_req, res) => res.writeHead(status, { location: next }).end());
  });
  return server().url(`/${name}/0`);
}

test('a chain of permanent redirects (301, 308) gives the final URL as permanentUrl', async () => {
  const result = await fetchUrl(chain('permanent', [301, 308, 301]), options);
  assert.ok(result.kind === 'ok', outcome(result));
  assert.equal(result.body.toString(), '<rss/>');
  assert.equal(result.finalUrl, server().url('/feed.xml'));
  assert.equal(result.permanentUrl, server().url('/feed.xml'));
});

test('one temporary redirect (302, 307) anywhere in the chain leaves permanentUrl unset', async () => {
  for (const statuses of [[302], [301, 302], [307, 301], [303]]) {
    const result = await fetchUrl(chain(`temporary-${statuses.join('-')}`, statuses), options);
    assert.ok(result.kind === 'ok', `${statuses.join(', ')}: ${outcome(result)}`);
    assert.equal(result.finalUrl, server().url('/feed.xml'));
    assert.equal(result.permanentUrl, null, statuses.join(', '));
  }
});

test('relative Locations are resolved against the URL that answered', async () => {
  server().route('/dir/old.xml', (_req, res) => res.writeHead(301, { location: '../feed.xml' }).end());
  const result = await fetchUrl(server().url('/dir/old.xml'), options);
  assert.ok(result.kind === 'ok', outcome(result));
  assert.equal(result.permanentUrl, server().url('/feed.xml'));
});

test('five redirects are followed; a sixth is too_many_redirects', async () => {
  assert.equal(outcome(await fetchUrl(chain('five', [302, 302, 302, 302, 302]), options)), 'ok');
  const before = server().requests.length;
  const result = await fetchUrl(chain('six', [302, 302, 302, 302, 302, 302]), options);
  assert.equal(outcome(result), 'too_many_redirects');
  assert.equal(server().requests.length - before, 6, 'the sixth Location is not requested');
});

test('a redirect must stay http(s) and name a target', async () => {
  server().route('/to-file', (_req, res) => res.writeHead(301, { location: 'file:///etc/passwd' }).end());
  server().route('/nowhere', (_req, res) => res.writeHead(302).end());
  const toFile = await fetchUrl(server().url('/to-file'), options);
  assert.ok(toFile.kind === 'error' && toFile.code === 'bad_url', outcome(toFile));
  assert.match(toFile.message, /file:\/\/\/etc\/passwd is not an http or https URL/);
  const nowhere = await fetchUrl(server().url('/nowhere'), options);
  assert.ok(nowhere.kind === 'error' && nowhere.code === 'http_status', outcome(nowhere));
  assert.equal(nowhere.status, 302);
});

test('the conditional headers go along every hop', async () => {
  const url = chain('conditional', [301]);
  await fetchUrl(url, { ...options, etag: '"abc"', lastModified: 'Tue, 15 Nov 1994 12:45:26 GMT' });
  const [first] = server().requestsFor('/conditional/0');
  const final = server().requestsFor('/feed.xml').at(-1);
  assert.ok(first && final);
  assert.equal(first.headers['if-none-match'], '"abc"');
  assert.equal(final.headers['if-none-match'], '"abc"');
  assert.equal(final.headers['if-modified-since'], 'Tue, 15 Nov 1994 12:45:26 GMT');
});
