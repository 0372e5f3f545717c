import { ADDRCONFIG } from 'node:dns';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { buildConnector } from 'undici';
import { type NetworkPolicy, whyRefused } from './address.js';
import { FetchFailure } from './failure.js';

/**
 * An undici connector that checks the address at connect time. It resolves the host itself, refuses unless
 * every address passes the policy, then connects to exactly one of the checked addresses: no second lookup
 * happens between the check and the connection, so a DNS answer that changes in between (DNS rebinding)
 * cannot slip a private address past the check. undici calls it for every new connection, and so for every
 * redirect hop to another host.
 *
 * `connect` (undici's, built with the connect timeout) bounds each TCP and TLS handshake; a name lookup that hangs is ended by the
 * whole-request deadline, which aborts the request waiting on it.
 */
export function guardedConnector(
  policy: NetworkPolicy,
  connect: buildConnector.connector,
): buildConnector.connector {
  return (options, callback) => {
    checkedAddresses(options.hostname, policy).then(
      (addresses) => {
        connectToFirst(addresses, withServerName(options), connect, callback);
      },
      (err: unknown) => {
        callback(err instanceof Error ? err : new Error(String(err)), null);
      },
    );
  };
}

/**
 * Once the connection goes to an address, TLS must still name the host: for SNI and for checking the
 * certificate. An IP-literal URL has no name to send, and its certificate is checked against the address.
 */
function withServerName(options: buildConnector.Options): buildConnector.Options {
  if (isIP(options.hostname) !== 0) return options;
  return { ...options, servername: options.servername ?? options.hostname };
}

type Addresses = readonly [string, ...string[]];

async function checkedAddresses(hostname: string, policy: NetworkPolicy): Promise<Addresses> {
  const addresses: Addresses = isIP(hostname) !== 0 ? [hostname] : await resolve(hostname);
  // Refusing the host when any of its addresses is refused, not just skipping those, keeps a name that mixes
  // public and private answers (a rebinding attempt, or a misconfiguration) from working some of the time.
  for (const address of addresses) {
    const reason = whyRefused(address, policy);
    if (reason === null) continue;
    const what = address === hostname ? address : `${hostname} resolves to ${address}, which`;
    throw new FetchFailure(
      'private_address',
      `${what} is ${reason}; Tidings fetches only from public addresses ` +
        '(set TIDINGS_ALLOW_PRIVATE_NETWORKS=true to allow private ones)',
    );
  }
  return addresses;
}

/** Every address of a name, in the resolver's order, the way Node's own connect asks for them. */
async function resolve(hostname: string): Promise<Addresses> {
  let found: { address: string }[];
  try {
    found = await lookup(hostname, { all: true, hints: ADDRCONFIG });
  } catch (err) {
    const code = err instanceof Error && 'code' in err ? String(err.code) : 'unknown error';
    const notFound = code === 'ENOTFOUND' || code === 'ENODATA';
    throw new FetchFailure(
      'dns',
      notFound ? `${hostname} was not found in DNS` : `the DNS lookup of ${hostname} failed (${code})`,
    );
  }
  const [first, ...rest] = found.map((entry) => entry.address);
  if (first === undefined) throw new FetchFailure('dns', `${hostname} has no address in DNS`);
  return [first, ...rest];
}

/**
 * Tries the checked addresses in turn until one connects, so a host whose first address cannot be reached
 * from here (often its IPv6 one) still works.
 */
function connectToFirst(
  [address, ...rest]: Addresses,
  options: buildConnector.Options,
  connect: buildConnector.connector,
  callback: buildConnector.Callback,
): void {
  connect({ ...options, hostname: address }, (...result) => {
    const [next, ...later] = rest;
    if (result[0] === null || next === undefined) callback(...result);
    else connectToFirst([next, ...later], options, connect, callback);
  });
}
