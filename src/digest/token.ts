import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  type NewDigestToken,
  createDigestTokenIfAbsent,
  createDigestTokensIfAbsent,
  digestTokenByAccount,
  digestTokenByHash,
  digestTokensByAccounts,
  replaceDigestToken,
} from '../store/digestTokens.js';
import type { Database } from '../store/schema.js';

/*
 * The digest token: the private part of an account's digest URLs, `/digests/ID?token=T` (one digest as a
 * web page) and `/digests.atom?token=T` (the Atom feed of its digests). 256 random bits as 43 characters of
 * base64url, so it goes into a URL as it is.
 *
 * Why it is stored as it is, when API keys are stored only hashed: every digest email carries a link
 * with the token ("Read on the web"), and emails are built (and retried) long after the token was made,
 * by any instance; a hash could not be put back into a link. What it grants is narrower than a key's:
 * reading the account's digests, nothing else (no queue, no settings, no writes). It is found by its
 * SHA-256 (so that the index look-up compares hashes, not the secret) and then compared in constant time;
 * `tidings account feed-url --rotate` replaces it, which revokes every link made with the old one on every
 * instance at the next request.
 */

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** A new random token and its hash, dated now. */
export function newDigestToken(now: Date = new Date()): NewDigestToken {
  const token = randomBytes(32).toString('base64url');
  return { token, tokenHash: hashDigestToken(token), createdAt: now.toISOString() };
}

export function hashDigestToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/**
 * Gives the account a token unless it has one, and returns it; null when there is no such account. Called
 * where a write happens anyway: when the account is created and when one of its digests is built.
 */
export async function ensureDigestToken(db: Kysely<Database>, accountId: number): Promise<string | null> {
  const row = await digestTokenByAccount(db, accountId);
  if (row !== null) return row.token;
  await createDigestTokenIfAbsent(db, accountId, newDigestToken());
  // Read back: a concurrent first use may have won with its own token.
  return (await digestTokenByAccount(db, accountId))?.token ?? null;
}

/**
 * ensureDigestToken for several accounts whose rows the caller holds (a batch of digest builds): one read,
 * and one write for those that have none.
 */
export async function ensureDigestTokens(db: Kysely<Database>, accountIds: readonly number[]): Promise<void> {
  const have = await digestTokensByAccounts(db, accountIds);
  const now = new Date();
  await createDigestTokensIfAbsent(
    db,
    accountIds.filter((id) => !have.has(id)).map((accountId) => ({ accountId, ...newDigestToken(now) })),
  );
}

/** The account's token, read only; null when it has none (no such account). */
export async function digestTokenOf(db: Kysely<Database>, accountId: number): Promise<string | null> {
  return (await digestTokenByAccount(db, accountId))?.token ?? null;
}

/** The tokens of several accounts, read only, by account (one without a token is absent). */
export function digestTokensOf(
  db: Kysely<Database>,
  accountIds: readonly number[],
): Promise<Map<number, string>> {
  return digestTokensByAccounts(db, accountIds);
}

/** Replaces the account's token (links with the old one stop working); null when there is no such account. */
export async function rotateDigestToken(db: Kysely<Database>, accountId: number): Promise<string | null> {
  const fresh = newDigestToken();
  return (await replaceDigestToken(db, accountId, fresh)) ? fresh.token : null;
}

/** The account a presented token belongs to; null for anything else (malformed, unknown, replaced). */
export async function accountIdByDigestToken(
  db: Kysely<Database>,
  presented: string,
): Promise<number | null> {
  if (!TOKEN_PATTERN.test(presented)) return null;
  const row = await digestTokenByHash(db, hashDigestToken(presented));
  if (row === null) return null;
  const a = Buffer.from(presented);
  const b = Buffer.from(row.token);
  return a.length === b.length && timingSafeEqual(a, b) ? row.account_id : null;
}

/** The private URL of the Atom feed of an account's digests. */
export function digestFeedUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/digests.atom?token=${encodeURIComponent(token)}`;
}
