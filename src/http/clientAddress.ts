import { isIP } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import type { TrustProxy } from '../config.js';

/**
 * The one rule for the client's address, for every limit that counts per address (the API's invalid keys,
 * the web's sign-ins, passkey options). Which address is the client's is Fastify's `request.ip`, made right
 * by `trustProxyOption` below; this function turns it into what is counted:
 *
 * - an IPv4 address as it is (an IPv4-mapped IPv6 address, `::ffff:192.0.2.1`, as its IPv4 address);
 * - an IPv6 address as its /64 network: one machine commonly holds a whole /64 and may take a new address
 *   in it for every request, so counting single IPv6 addresses would let it choose its own.
 */
export function limitAddress(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  const groups = ipv6Groups(ip);
  if (groups === null) return ip;
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (mapped) {
    const [hi = 0, lo = 0] = groups.slice(6);
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address (with `::` expanded and a dotted IPv4 tail read). */
function ipv6Groups(ip: string): number[] | null {
  const bare = ip.replace(/%.*$/, ''); // a zone index (fe80::1%eth0) is not part of the address
  let text = bare;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(bare);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${bare.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  const missing = 8 - front.length - back.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return null;
  const groups = [...front, ...new Array<number>(missing).fill(0), ...back];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/**
 * Fastify's `trustProxy` for TIDINGS_TRUST_PROXY (config.ts parses it; docs/operating.md, "Behind a reverse
 * proxy"). Off: the socket's address is the client's. A list of proxy addresses or CIDRs: walking
 * X-Forwarded-For from the right, entries are skipped while the address they came from is a listed proxy;
 * the first that is not is the client's. A hop count n: the right-most n addresses (the socket's first) are
 * proxies, the entry before them the client's. A number is passed as a function, because this Fastify
 * fails closed on a number (it trusts nothing); `true` is one hop, as in TIDINGS_TRUST_PROXY (Fastify's own
 * `true` trusts every hop: the left-most entry, which the client writes, would win).
 */
export function trustProxyOption(setting: TrustProxy | true): FastifyServerOptions['trustProxy'] {
  if (setting === false) return false;
  if (setting === true) return trustProxyOption(1);
  if (typeof setting === 'number') {
    const hops = setting;
    return (_address: string, hop: number) => hop < hops;
  }
  return [...setting];
}
