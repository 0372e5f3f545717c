/**
 * Whose address a limit counts (issue 25, F3): TIDINGS_TRUST_PROXY as a hop count or the proxies' own
 * addresses, read right to left, so that an entry the client wrote at the left of X-Forwarded-For (which an
 * appending proxy such as nginx's `$proxy_add_x_forwarded_for` passes on) never chooses the address. Both
 * limiters, the API's invalid keys and the web's sign-ins, over a real server on loopback, on both engines.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig } from '../config.js';
import { describeEachEngine } from '../test/harness.js';
import { openSignInForm, postForm, signInServer } from '../test/signInHttp.js';
import { limitAddress } from './clientAddress.js';

test('TIDINGS_TRUST_PROXY: off, a hop count (true is one), or a list of addresses and CIDRs', () => {
  const read = (value: string | undefined) => loadConfig({ TIDINGS_TRUST_PROXY: value }).trustProxy;
  assert.equal(read(undefined), false);
  assert.equal(read('false'), false);
  assert.equal(read('0'), false);
  assert.equal(read('true'), 1);
  assert.equal(read('1'), 1);
  assert.equal(read('2'), 2);
  assert.deepEqual(read('127.0.0.1, 10.0.0.0/8,::1,fd00::/8'), [
    '127.0.0.1',
    '10.0.0.0/8',
    '::1',
    'fd00::/8',
  ]);
  assert.deepEqual(read('loopback,uniquelocal'), ['loopback', 'uniquelocal']);
  for (const [value, why] of [
    ['maybe', /"maybe" is not an IP address or CIDR/],
    ['10.0.0.0/33', /prefix length outside 1 to 32/],
    ['::1/0', /prefix length outside 1 to 128/],
    ['10.0.0.1,,10.0.0.2', /an empty entry/],
    ['21', /21 hops is too many/],
    ['-1', /not an IP address/],
  ] as const) {
    assert.throws(
      () => read(value),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.message.includes('TIDINGS_TRUST_PROXY:') &&
        why.test(err.message) &&
        err.message.includes('a comma-separated list of the proxies'),
      value,
    );
  }
});

test('the one rule for the address counted: IPv4 as it is, IPv4-mapped as IPv4, IPv6 by its /64', () => {
  assert.equal(limitAddress('192.0.2.7'), '192.0.2.7');
  assert.equal(limitAddress('::ffff:192.0.2.7'), '192.0.2.7');
  assert.equal(limitAddress('::ffff:c000:207'), '192.0.2.7');
  assert.equal(limitAddress('2001:db8:1:2::1'), '2001:db8:1:2::/64');
  assert.equal(limitAddress('2001:0db8:0001:0002:ffff:1:2:3'), '2001:db8:1:2::/64');
  assert.equal(limitAddress('2001:db8::7'), '2001:db8:0:0::/64');
  assert.equal(limitAddress('::1'), '0:0:0:0::/64');
  assert.equal(limitAddress('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.equal(limitAddress('not an address'), 'not an address');
});

/** The X-Forwarded-For an attacker's request arrives with, the i-th time, behind each kind of set-up. */
interface Setting {
  env: string | undefined;
  /** The header Tidings receives (the socket is always 127.0.0.1, the proxy's or the client's). */
  header: (i: number) => string;
  /** The same client's request from elsewhere: a header whose client is another address. */
  other: string;
}

const SETTINGS: Setting[] = [
  // No proxy: the header is the client's own and means nothing; the socket's address is counted.
  { env: undefined, header: (i) => `10.9.0.${i}`, other: '' },
  // One proxy (nginx appends the address it saw, 203.0.113.7, after whatever the client sent).
  { env: 'true', header: (i) => `10.9.0.${i}, 203.0.113.7`, other: '10.9.0.1, 203.0.113.8' },
  // Two proxies: a load balancer at 10.1.2.3 appends too.
  { env: '2', header: (i) => `10.9.0.${i}, 203.0.113.7, 10.1.2.3`, other: '10.9.0.1, 203.0.113.8, 10.1.2.3' },
  // The proxies named: 127.0.0.1 and the load balancers' network.
  {
    env: '127.0.0.1,10.1.0.0/16',
    header: (i) => `10.9.0.${i}, 203.0.113.7, 10.1.2.3`,
    other: '10.9.0.1, 203.0.113.8, 10.1.2.3',
  },
  // A list that does not name the socket's address: nothing in the header is believed.
  { env: '10.1.0.0/16', header: (i) => `10.9.0.${i}, 203.0.113.${i}, 10.1.2.3`, other: '' },
];

for (const setting of SETTINGS) {
  await describeEachEngine(`TIDINGS_TRUST_PROXY=${setting.env ?? '(unset)'}: spoofed entries`, (ctx) => {
    let app: FastifyInstance;
    let base = '';

    before(async () => {
      const { trustProxy } = loadConfig({ TIDINGS_TRUST_PROXY: setting.env });
      ({ app, base } = await signInServer(ctx.store(), { trustProxy, clock: () => 1_000_000 }));
    });
    after(() => app.close());

    test('bad API keys with a new first X-Forwarded-For entry each time: the 31st is 429', async () => {
      const bad = (xff: string) =>
        fetch(
          `${base}/api/v1/articles?apiKey=tdg_wrong`,
          xff === '' ? {} : { headers: { 'x-forwarded-for': xff } },
        );
      for (let i = 1; i <= 30; i++) assert.equal((await bad(setting.header(i))).status, 401, `request ${i}`);
      const limited = await bad(setting.header(31));
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('retry-after'), '60');
      if (setting.other !== '') {
        // The header is believed where it should be: another client behind the proxy is not held back.
        assert.equal((await bad(setting.other)).status, 401);
      }
    });

    test('wrong keys on the sign-in form with a new first entry each time: the 11th is 429', async () => {
      const form = await openSignInForm(base);
      const attempt = (xff: string) =>
        postForm(base, '/sign-in', form, { key: 'tdg_wrong' }, xff === '' ? {} : { 'x-forwarded-for': xff });
      for (let i = 1; i <= 10; i++)
        assert.equal((await attempt(setting.header(i))).status, 401, `attempt ${i}`);
      const limited = await attempt(setting.header(11));
      assert.equal(limited.status, 429);
      assert.match(limited.body, /Too many failed sign-ins from your network/);
      if (setting.other !== '') assert.equal((await attempt(setting.other)).status, 401);
    });
  });
}

await describeEachEngine('TIDINGS_TRUST_PROXY=true: IPv6 clients are counted by their /64', (ctx) => {
  let app: FastifyInstance;
  let base = '';
  before(async () => {
    ({ app, base } = await signInServer(ctx.store(), { trustProxy: 1, clock: () => 1_000_000 }));
  });
  after(() => app.close());

  test('a new address in one /64 for every sign-in attempt: the 11th is 429', async () => {
    const form = await openSignInForm(base);
    const attempt = (xff: string) =>
      postForm(base, '/sign-in', form, { key: 'tdg_wrong' }, { 'x-forwarded-for': xff });
    for (let i = 1; i <= 10; i++)
      assert.equal((await attempt(`2001:db8:5:6::${i.toString(16)}`)).status, 401);
    assert.equal((await attempt('2001:db8:5:6:ffff::1')).status, 429);
    assert.equal((await attempt('2001:db8:5:7::1')).status, 401);
  });
});
