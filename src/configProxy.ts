import { isIP } from 'node:net';
import * as z from 'zod';
import type { ConfigFacts } from './configProblems.js';

// TIDINGS_TRUST_PROXY read from the environment for src/config.ts: a file of its own to keep that one short.

/**
 * Which proxies' X-Forwarded-For to believe (TIDINGS_TRUST_PROXY; docs/operating.md, "Behind a reverse
 * proxy"): false, the socket's address is the client's; a number of proxy hops in front of Tidings (`true`
 * is 1: the right-most entry is the client's); or the proxies' own addresses and CIDRs.
 */
export type TrustProxy = false | number | readonly string[];

/** The most proxy hops TIDINGS_TRUST_PROXY may count (no real chain is longer). */
const MAX_PROXY_HOPS = 20;
/** proxy-addr's names for the usual ranges, accepted in a list. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

const TRUST_PROXY_EXPECTED = `expected false, true (one proxy: the right-most X-Forwarded-For entry is the client's), a number of proxies (1 to ${MAX_PROXY_HOPS}), or a comma-separated list of the proxies' addresses or CIDRs such as 127.0.0.1,10.0.0.0/8,::1`;

/** One entry of a TIDINGS_TRUST_PROXY list: an address, an address/prefix, or a range's name; else why not. */
function proxyEntryProblem(entry: string): { words: string; facts: ConfigFacts } | null {
  if (entry === '')
    return { words: 'an empty entry', facts: { reason: 'proxy_empty_entry', max: MAX_PROXY_HOPS } };
  if (PROXY_RANGE_NAMES.has(entry)) return null;
  const slash = entry.indexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  const family = isIP(address);
  if (family === 0) {
    const facts: ConfigFacts = { reason: 'proxy_entry', entry, max: MAX_PROXY_HOPS };
    return { words: `"${entry}" is not an IP address or CIDR`, facts };
  }
  if (slash === -1) return null;
  const prefix = entry.slice(slash + 1);
  const max = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) < 1 || Number(prefix) > max) {
    const facts: ConfigFacts = { reason: 'proxy_prefix', entry, prefixMax: max, max: MAX_PROXY_HOPS };
    return { words: `"${entry}" has a prefix length outside 1 to ${max}`, facts };
  }
  return null;
}

export const trustProxyFromEnv = z.string().transform((raw, ctx): TrustProxy => {
  const value = raw.trim().toLowerCase();
  if (['false', 'no', 'off', '0'].includes(value)) return false;
  if (['true', 'yes', 'on'].includes(value)) return 1;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops <= MAX_PROXY_HOPS) return hops;
    const facts: ConfigFacts = { reason: 'proxy_hops', hops, max: MAX_PROXY_HOPS };
    ctx.addIssue({
      code: 'custom',
      message: `${value} hops is too many; ${TRUST_PROXY_EXPECTED}`,
      params: { facts },
    });
    return z.NEVER;
  }
  const entries = value.split(',').map((e) => e.trim());
  const problem = entries.map(proxyEntryProblem).find((p) => p !== null);
  if (problem !== undefined) {
    const { words, facts } = problem;
    ctx.addIssue({ code: 'custom', message: `${words}; ${TRUST_PROXY_EXPECTED}`, params: { facts } });
    return z.NEVER;
  }
  return entries;
});
