import { randomBytes } from 'node:crypto';

/**
 * An account's inbound address: a long random local part (the token) at TIDINGS_INBOUND_DOMAIN. Guessing
 * one is hopeless: 160 random bits, in lowercase base32 (a–z, 2–7), which every mail system and URL
 * carries unchanged and no case-folding mangles.
 */

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
/** 20 bytes: 160 bits, 32 characters. */
const TOKEN_BYTES = 20;
const TOKEN = /^[a-z2-7]{32}$/;

/** A new random token. */
export function newToken(): string {
  const bytes = randomBytes(TOKEN_BYTES);
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31] ?? '';
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  return out;
}

export const addressOf = (token: string, domain: string): string => `${token}@${domain}`;

/**
 * The token of an address at `domain` (case is ignored, as mail systems do); null for any other address,
 * or when no domain is configured (no address was ever given out).
 */
export function tokenOf(address: string, domain: string | null): string | null {
  if (domain === null) return null;
  const bare = address.trim().replace(/^<|>$/g, '').toLowerCase();
  const at = bare.lastIndexOf('@');
  if (at === -1 || bare.slice(at + 1) !== domain) return null;
  const local = bare.slice(0, at);
  return TOKEN.test(local) ? local : null;
}
