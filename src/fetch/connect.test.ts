import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { FeedServer } from '../test/feedServer.js';
import type { NetworkPolicy } from './address.js';
import { type FetchResult, fetchUrl } from './fetch.js';

const outcome = (result: FetchResult): string => (result.kind === 'error' ? result.code : result.kind);

const timeouts = { connectTimeoutMs: 2000, requestTimeoutMs: 5000 };
const publicOnly: NetworkPolicy = { allowPrivate: false };
/** The test stand-in for "a public host": 127.0.0.2 is allowed, every other private address is not. */
const only127002: NetworkPolicy = { allowPrivate: false, isAllowed: (address) => address === '127.0.0.2' };

/** The server an attacker would aim at: it must never receive a request while private addresses are refused. */
let internal: FeedServer;
let outside: FeedServer;
before(async () => {
  internal = await FeedServer.start('127.0.0.1');
  internal.route('/secret', (_req, res) => res.end('internal data'));
  outside = await FeedServer.start('127.0.0.2');
});
after(async () => {
  await internal.close();
  await outside.close();
});

test('a redirect from an allowed address to a refused one is refused before connecting', async () => {
  const url = outside.route('/feed.xml', (_req, res) => {
    res.writeHead(302, { location: internal.url('/secret') }).end();
  });
  const before = internal.requests.length;
  const result = await fetchUrl(url, { ...timeouts, policy: only127002 });
  assert.ok(result.kind === 'error' && result.code === 'private_address', outcome(result));
  assert.match(result.message, /127\.0\.0\.1 is a loopback address/);
  assert.equal(outside.requestsFor('/feed.xml').length, 1);
  assert.equal(internal.requests.length, before);
});

test('private IP literals are refused in every spelling, with nothing sent', async () => {
  const port = new URL(internal.origin).port;
  const literals = [
    `http://127.0.0.1:${port}/secret`,
    `http://0x7f000001:${port}/secret`,
    `http://2130706433:${port}/secret`,
    `http://0177.0.0.1:${port}/secret`,
    `http://127.1:${port}/secret`,
    `http://[::1]:${port}/secret`,
    `http://[::ffff:127.0.0.1]:${port}/secret`,
    `http://[::ffff:7f00:1]:${port}/secret`,
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00::1]/',
    'http://0.0.0.0/',
  ];
  const before = internal.requests.length;
  for (const url of literals) {
    assert.equal(outcome(await fetchUrl(url, { ...timeouts, policy: publicOnly })), 'private_address', url);
  }
  assert.equal(internal.requests.length, before);
});

test('a name that resolves to a private address is refused: the check is on addresses, not names', async () => {
  const url = `http://localhost:${new URL(internal.origin).port}/secret`;
  const before = internal.requests.length;
  const result = await fetchUrl(url, { ...timeouts, policy: publicOnly });
  assert.ok(result.kind === 'error' && result.code === 'private_address', outcome(result));
  assert.match(result.message, /localhost resolves to (127\.0\.0\.1|::1), which is a loopback address/);
  assert.match(result.message, /TIDINGS_ALLOW_PRIVATE_NETWORKS=true/);
  assert.equal(internal.requests.length, before);
});

test('a name is fetched from the address that was checked, with its own Host header', async () => {
  const checked: string[] = [];
  const policy: NetworkPolicy = {
    allowPrivate: false,
    isAllowed: (address) => {
      checked.push(address);
      return address === '127.0.0.1';
    },
  };
  const port = new URL(internal.origin).port;
  const result = await fetchUrl(`http://localhost:${port}/secret`, { ...timeouts, policy });
  assert.ok(result.kind === 'ok', outcome(result));
  assert.equal(result.body.toString(), 'internal data');
  assert.deepEqual(checked, ['127.0.0.1']);
  assert.equal(internal.requests.at(-1)?.headers.host, `localhost:${port}`);
});

test('allowPrivate lets a Tidings read feeds on its own network', async () => {
  const result = await fetchUrl(internal.url('/secret'), { ...timeouts, policy: { allowPrivate: true } });
  assert.ok(result.kind === 'ok', outcome(result));
  assert.equal(result.body.toString(), 'internal data');
});

test('a name that does not exist is a dns error', async () => {
  const result = await fetchUrl('http://no-such-host.invalid/feed.xml', { ...timeouts, policy: publicOnly });
  assert.ok(result.kind === 'error' && result.code === 'dns', outcome(result));
  assert.match(result.message, /no-such-host\.invalid was not found in DNS/);
});
