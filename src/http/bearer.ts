import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from './errors.js';

/**
 * A secret sent as `Authorization: Bearer <secret>` (the metrics token, the inbound mail secret), checked
 * in constant time: both sides are compared as SHA-256 digests, of equal length whatever was sent, with no
 * early exit on a shared prefix.
 */
export const bearerDigest = (secret: string): Buffer => createHash('sha256').update(secret).digest();

/** Throws key_missing (no bearer at all) or key_invalid (another secret), with WWW-Authenticate. */
export function requireBearer(
  authorization: string | undefined,
  expected: Buffer,
  words: { missing: string; invalid: string },
): void {
  const given = /^Bearer +(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  const challenge = { 'www-authenticate': 'Bearer' };
  if (given === undefined) throw new ApiError('key_missing', words.missing, challenge);
  if (!timingSafeEqual(bearerDigest(given), expected))
    throw new ApiError('key_invalid', words.invalid, challenge);
}
