import { hash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database, Timestamp } from '../store/schema.js';
import { linksMadeSince } from './linkLifetimes.js';
import {
  accountIdByUnsubscribeHash,
  deleteUnsubscribeTokens,
  insertUnsubscribeTokens,
} from '../store/unsubscribeTokens.js';

/*
 * One-click unsubscribe links (RFC 8058): `${baseUrl}/unsubscribe/TOKEN`, in each digest email's
 * List-Unsubscribe header and footer. The token is 256 random bits (43 characters of base64url), made
 * afresh for each email as it is sent, and only its SHA-256 is stored: unlike the digest token, nothing
 * needs to read it back, because the email is rendered at the moment the token is made. It grants one
 * thing: turning that account's digest emails off, pausing or resuming them. It is distinct from the
 * digest token (which reads digests) and from every key. Looking it up by its hash compares hashes in the
 * index, never the secret, so there is nothing to time. A token works for a year (linkLifetimes.ts): an
 * older one is refused when used, and forgotten by the digest worker; revoking them all ("Reset
 * unsubscribe links", or a new email address) deletes the account's rows.
 */

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** "Pause for a week". */
export const PAUSE_MS = 7 * 24 * 60 * 60 * 1000;

const hashToken = (token: string): string => hash('sha256', token, 'hex');

/**
 * A new token of the account for one email (its hash stored); null when there is no such account.
 */
export async function mintUnsubscribeToken(
  db: Kysely<Database>,
  accountId: number,
  now: Date,
): Promise<string | null> {
  return (await mintUnsubscribeTokens(db, [accountId], now))[0] ?? null;
}

/**
 * mintUnsubscribeToken for a batch of emails, one token for each (`accountIds` names each email's
 * account): the tokens in the same order, null for an account that no longer exists.
 */
export async function mintUnsubscribeTokens(
  db: Kysely<Database>,
  accountIds: readonly number[],
  now: Date,
): Promise<(string | null)[]> {
  const tokens = accountIds.map((accountId) => {
    const token = randomBytes(32).toString('base64url');
    return { accountId, token, tokenHash: hashToken(token) };
  });
  const stored = await insertUnsubscribeTokens(db, tokens, {
    createdAt: now.toISOString(),
    pruneBefore: linksMadeSince('unsubscribe_tokens', now),
  });
  return tokens.map((t) => (stored.has(t.tokenHash) ? t.token : null));
}

/**
 * The account a presented token belongs to at `now`; null for anything else (malformed, unknown, revoked,
 * expired, of a disabled account).
 */
export async function accountIdByUnsubscribeToken(
  db: Kysely<Database>,
  presented: string,
  now: Date,
): Promise<number | null> {
  if (!TOKEN_PATTERN.test(presented)) return null;
  return accountIdByUnsubscribeHash(db, hashToken(presented), linksMadeSince('unsubscribe_tokens', now));
}

/** Revokes every unsubscribe link of the account; how many there were. */
export async function revokeUnsubscribeTokens(db: Kysely<Database>, accountId: number): Promise<number> {
  return deleteUnsubscribeTokens(db, accountId);
}

/** The page (GET) and one-click endpoint (POST) of a token. */
export function unsubscribeUrl(baseUrl: string, token: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/unsubscribe/${token}`;
}

/** Whether the account's emails are paused at `now` (digests are still built). */
export function emailPaused(account: { email_paused_until: Timestamp | null }, now: Date): boolean {
  const until = account.email_paused_until;
  return until !== null && Date.parse(until) > now.getTime();
}
