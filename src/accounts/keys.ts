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

/** Constant-time comparison of a presented key with a stored hash (on every API request: one-shot hash). */
export function keyMatches(key: string, storedHash: string): boolean {
  const presented = hash('sha256', key, 'buffer');
  const stored = Buffer.from(storedHash, 'hex');
  return stored.length === presented.length && timingSafeEqual(presented, stored);
}

/** How a key is shown after creation: enough to recognise it, nothing to use. */
export const displayPrefix = (prefix: string): string => `tdg_${prefix}…`;
