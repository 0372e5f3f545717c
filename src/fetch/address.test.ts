import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AddressCategory, classifyAddress, whyRefused } from './address.js';

const CASES: readonly [address: string, category: AddressCategory][] = [
  // IPv4, public
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['93.184.215.14', 'public'],
  ['9.255.255.255', 'public'],
  ['11.0.0.0', 'public'],
  ['100.63.255.255', 'public'],
  ['100.128.0.0', 'public'],
  ['172.15.255.255', 'public'],
  ['172.32.0.0', 'public'],
  ['192.167.255.255', 'public'],
  ['192.169.0.0', 'public'],
  ['223.255.255.255', 'public'],
  // IPv4, refused
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'link_local'],
  ['100.64.0.1', 'shared'],
  ['100.127.255.255', 'shared'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.255', 'reserved'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.200', 'documentation'],
  // IPv6, public
  ['2606:4700:4700::1111', 'public'],
  ['2001:4860:4860::8888', 'public'],
  ['2a00:1450:4001:81b::200e', 'public'],
  ['2001:200::1', 'public'],
  // IPv6, refused
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['fc00::1', 'private'],
  ['fd12:3456:789a::1', 'private'],
  ['fec0::1', 'private'],
  ['fe80::1', 'link_local'],
  ['fe80::1%eth0', 'link_local'],
  ['febf:ffff::1', 'link_local'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['2001::1', 'reserved'],
  ['2002:7f00:1::', 'reserved'],
  ['100::1', 'reserved'],
  ['::127.0.0.1', 'reserved'],
  ['64:ff9b:1::1', 'reserved'],
  // IPv4 inside IPv6: judged by the IPv4 address
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:a9fe:a9fe', 'link_local'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::ffff:8.8.8.8', 'public'],
  ['64:ff9b::8.8.8.8', 'public'],
  ['64:ff9b::7f00:1', 'loopback'],
  ['64:ff9b::c0a8:101', 'private'],
  // not an address at all: refused
  ['example.com', 'reserved'],
  ['', 'reserved'],
  ['999.1.1.1', 'reserved'],
];

test('addresses are classified by the IANA special-purpose ranges', () => {
  for (const [address, category] of CASES) assert.equal(classifyAddress(address), category, address);
});

test('the default policy refuses every address that is not public, in words for a person', () => {
  const policy = { allowPrivate: false };
  for (const [address, category] of CASES) {
    const reason = whyRefused(address, policy);
    if (category === 'public') assert.equal(reason, null, address);
    else assert.ok(reason !== null && reason.length > 0, address);
  }
  assert.equal(whyRefused('169.254.169.254', policy), 'a link-local address');
  assert.equal(whyRefused('::ffff:127.0.0.1', policy), 'a loopback address (this machine)');
});

test('allowPrivate allows every address', () => {
  for (const [address] of CASES) assert.equal(whyRefused(address, { allowPrivate: true }), null, address);
});

test("a test policy's isAllowed decides alone, and refusals still name the category", () => {
  const policy = { allowPrivate: false, isAllowed: (address: string) => address === '127.0.0.2' };
  assert.equal(whyRefused('127.0.0.2', policy), null);
  assert.equal(whyRefused('127.0.0.1', policy), 'a loopback address (this machine)');
  assert.equal(whyRefused('8.8.8.8', policy), 'refused by the network policy');
});
