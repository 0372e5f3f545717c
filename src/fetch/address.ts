import { BlockList, isIP } from 'node:net';

/**
 * Where an IP address leads. Everything but `public` is refused by default: a URL to fetch is whatever a user (or
 * a server's own redirect) typed, and without this check it could make Tidings request the cloud metadata
 * service, a router's admin page or a database on the same host (server-side request forgery).
 */
export type AddressCategory =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'shared'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'reserved';

/** The words that finish "…, which is ___" in a refusal shown to the user. */
const CATEGORY_WORDS: Record<Exclude<AddressCategory, 'public'>, string> = {
  unspecified: 'an unspecified address (it reaches this machine)',
  loopback: 'a loopback address (this machine)',
  private: 'a private network address',
  link_local: 'a link-local address',
  shared: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  documentation: 'an address reserved for documentation',
  reserved: 'a reserved address',
};

type Range = readonly [network: string, prefix: number, category: Exclude<AddressCategory, 'public'>];

/**
 * The IANA special-purpose ranges that are not globally reachable. Order matters where ranges nest: the
 * first match names the category (255.255.255.255 is "broadcast", not the "reserved" 240/4 around it).
 */
const IPV4_RANGES: readonly Range[] = [
  ['255.255.255.255', 32, 'broadcast'],
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link_local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

/** IPv4-mapped (::ffff:0:0/96) and NAT64 (64:ff9b::/96) addresses are classified by the IPv4 inside them. */
const IPV6_RANGES: readonly Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::', 96, 'reserved'], // deprecated IPv4-compatible addresses
  ['::ffff:0:0:0', 96, 'reserved'], // IPv4-translated (SIIT)
  ['64:ff9b:1::', 48, 'reserved'], // local-use NAT64
  ['100::', 64, 'reserved'], // discard-only
  ['2001:db8::', 32, 'documentation'],
  ['2001::', 23, 'reserved'], // IETF protocol assignments, Teredo among them
  ['2002::', 16, 'reserved'], // 6to4, deprecated: it would tunnel to an arbitrary IPv4 address
  ['3fff::', 20, 'documentation'],
  ['5f00::', 16, 'reserved'], // SRv6 segment identifiers
  ['fc00::', 7, 'private'], // unique local addresses, IPv6's private networks
  ['fe80::', 10, 'link_local'],
  ['fec0::', 10, 'private'], // deprecated site-local addresses
  ['ff00::', 8, 'multicast'],
];

/** One BlockList per range, in table order, so the first match can name its category. */
function compile(ranges: readonly Range[], family: 'ipv4' | 'ipv6'): [BlockList, Range[2]][] {
  return ranges.map(([network, prefix, category]) => {
    const list = new BlockList();
    list.addSubnet(network, prefix, family);
    return [list, category];
  });
}

const IPV4_LISTS = compile(IPV4_RANGES, 'ipv4');
const IPV6_LISTS = compile(IPV6_RANGES, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (which must be valid), expanding "::" and a dotted IPv4 tail. */
function ipv6Groups(address: string): number[] {
  const [head = '', tail] = address.split('::');
  const parse = (part: string): number[] =>
    part === ''
      ? []
      : part.split(':').flatMap((group) => {
          if (!group.includes('.')) return [parseInt(group, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * The IPv4 address that packets to this IPv6 address really go to, for the two forms that carry one: mapped
 * (::ffff:a.b.c.d, how a dual-stack socket writes IPv4) and NAT64 (64:ff9b::a.b.c.d, what DNS64 answers on an
 * IPv6-only network, where refusing the whole prefix would refuse every IPv4-only site).
 */
function embeddedIPv4(address: string): string | null {
  const groups = ipv6Groups(address);
  const [g0, g1, g2, g3, g4, g5, g6 = 0, g7 = 0] = groups;
  const mapped = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff;
  const nat64 = g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0;
  if (!mapped && !nat64) return null;
  return [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff].join('.');
}

/** Where an IP address leads. Anything that is not a valid IP address is classified `reserved` (refused). */
export function classifyAddress(address: string): AddressCategory {
  const unzoned = address.split('%')[0] ?? '';
  const family = isIP(unzoned);
  if (family === 4) return firstMatch(IPV4_LISTS, unzoned, 'ipv4');
  if (family !== 6) return 'reserved';
  const ipv4 = embeddedIPv4(unzoned);
  return ipv4 === null ? firstMatch(IPV6_LISTS, unzoned, 'ipv6') : classifyAddress(ipv4);
}

function firstMatch(
  lists: readonly [BlockList, Range[2]][],
  address: string,
  family: 'ipv4' | 'ipv6',
): AddressCategory {
  for (const [list, category] of lists) if (list.check(address, family)) return category;
  return 'public';
}

/** Which addresses the fetcher may connect to. */
export interface NetworkPolicy {
  /**
   * TIDINGS_ALLOW_PRIVATE_NETWORKS: allow every address, for a Tidings that reads feeds served on its own
   * network or machine (a homelab's RSS bridge, say).
   */
  allowPrivate: boolean;
  /**
   * For tests only: decides instead of the two rules above, so a test can allow one loopback address
   * (127.0.0.2) while another (127.0.0.1) stays refused.
   */
  isAllowed?: (address: string) => boolean;
}

/** Why the policy refuses an address, in words that finish "…, which is ___"; null when it is allowed. */
export function whyRefused(address: string, policy: NetworkPolicy): string | null {
  const category = classifyAddress(address);
  if (policy.isAllowed !== undefined) {
    if (policy.isAllowed(address)) return null;
    return category === 'public' ? 'refused by the network policy' : CATEGORY_WORDS[category];
  }
  if (category === 'public' || policy.allowPrivate) return null;
  return CATEGORY_WORDS[category];
}
