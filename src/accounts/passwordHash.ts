import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { RefusalFacts } from '../errors.js';

/**
 * Password hashing: scrypt from node:crypto, a random 16-byte salt per password, a 32-byte result. The
 * stored form carries its parameters, `scrypt$LOG2N$r$p$SALT$HASH` (salt and hash in base64url), so that
 * the cost can be raised later: a hash made with other parameters still verifies, and `needsRehash` says
 * to store a new one at the next successful sign-in.
 *
 * N = 2^15, r = 8, p = 1: 32 MiB and some tens of milliseconds per hash, done on libuv's thread pool.
 */
export interface ScryptParams {
  log2N: number;
  r: number;
  p: number;
}

export const CURRENT_PARAMS: Readonly<ScryptParams> = { log2N: 15, r: 8, p: 1 };

const SALT_BYTES = 16;
const HASH_BYTES = 32;
/** Stored parameters are checked against these bounds before use (a corrupt row must not eat the memory). */
const MAX_LOG2N = 20;
const MAX_R = 32;
const MAX_P = 16;

/** The fewest characters a password may have. */
export const PASSWORD_MIN_CHARS = 10;
/** The most bytes (UTF-8) a password may have: a size limit, not a rule for people. */
export const PASSWORD_MAX_BYTES = 1024;

/** Characters as people count them (grapheme clusters: an emoji with its modifiers is one). */
export const characters = (text: string): number => [...new Intl.Segmenter().segment(text)].length;

type PasswordRefusal = Extract<RefusalFacts, { reason: 'password_too_short' | 'password_too_long' }>;

/** Why a new password is refused, as facts a transport words; null when it is acceptable. */
export function passwordRefusal(password: string): PasswordRefusal | null {
  const normal = password.normalize('NFC');
  if (characters(normal) < PASSWORD_MIN_CHARS) {
    return { reason: 'password_too_short', min: PASSWORD_MIN_CHARS };
  }
  if (Buffer.byteLength(normal, 'utf8') > PASSWORD_MAX_BYTES) {
    return { reason: 'password_too_long', maxBytes: PASSWORD_MAX_BYTES };
  }
  return null;
}

/** A refusal in English words (the CLI's and the API's). */
export const passwordWords = (facts: PasswordRefusal): string =>
  facts.reason === 'password_too_short'
    ? `a password needs at least ${facts.min} characters`
    : `a password may have at most ${facts.maxBytes.toLocaleString('en')} bytes`;

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const N = 2 ** params.log2N;
  return new Promise((resolve, reject) => {
    scrypt(
      Buffer.from(password.normalize('NFC'), 'utf8'),
      salt,
      HASH_BYTES,
      { N, r: params.r, p: params.p, maxmem: 256 * N * params.r },
      (err, key) => (err === null ? resolve(key) : reject(err)),
    );
  });
}

/** A new hash of a password (already checked with passwordRefusal), with a fresh salt. */
export async function hashPassword(password: string, params: ScryptParams = CURRENT_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, params);
  return [
    'scrypt',
    params.log2N,
    params.r,
    params.p,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$');
}

interface Parsed {
  params: ScryptParams;
  salt: Buffer;
  key: Buffer;
}

function parse(stored: string): Parsed | null {
  const m = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([A-Za-z0-9_-]{16,})\$([A-Za-z0-9_-]{16,})$/.exec(
    stored,
  );
  if (m === null) return null;
  const params = { log2N: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  if (params.log2N < 1 || params.log2N > MAX_LOG2N || params.r < 1 || params.r > MAX_R) return null;
  if (params.p < 1 || params.p > MAX_P) return null;
  const salt = Buffer.from(m[4] ?? '', 'base64url');
  const key = Buffer.from(m[5] ?? '', 'base64url');
  return salt.length >= SALT_BYTES && key.length === HASH_BYTES ? { params, salt, key } : null;
}

/** Whether a password matches a stored hash (constant-time comparison); false for a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (parsed === null) return false;
  const key = await derive(password, parsed.salt, parsed.params);
  return timingSafeEqual(key, parsed.key);
}

/** Whether a stored hash was made with other parameters than today's (store a new one when it matches). */
export function needsRehash(stored: string): boolean {
  const parsed = parse(stored);
  if (parsed === null) return true;
  const { log2N, r, p } = parsed.params;
  return log2N !== CURRENT_PARAMS.log2N || r !== CURRENT_PARAMS.r || p !== CURRENT_PARAMS.p;
}

let dummy: Promise<string> | undefined;
/**
 * A hash of a random password, made once: a sign-in with an unknown identifier (or an account without a
 * password) is checked against it, so that it takes as long as a wrong password.
 */
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(24).toString('base64url'));
  return dummy;
}
