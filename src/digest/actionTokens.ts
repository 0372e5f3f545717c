import { hash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { digestOfActionHash, insertDigestActionTokens } from '../store/digestActionTokens.js';
import type { Database } from '../store/schema.js';
import { linksMadeSince } from './linkLifetimes.js';

/*
 * The private links of a digest's actions (issue 24): per item "Keep for tomorrow", per feed "Fewer from
 * this feed", "More from this feed" and "Mute for a week" (or "Unmute"), per reading-list item of its "From your reading
 * list" section "Archive" and "Keep for tomorrow" (issue 27), at `${baseUrl}/digest-actions/TOKEN?do=…`. The
 * one-click unsubscribe model (digest/unsubscribe.ts): a token of 256 random bits (43 characters of
 * base64url) made afresh for each email (or each web rendering of a digest for a signed-in reader), only
 * its SHA-256 stored; it names the account and the digest, and authorises only those actions on that
 * digest's items and their feeds (accounts/digestActions.ts). A token works for 30 days (linkLifetimes.ts):
 * an older one is refused when used, and forgotten by the digest worker; "Reset unsubscribe links" and a
 * new email address revoke them all (store/digestActionTokens.ts deleteDigestActionTokens, from
 * accounts/unsubscribe.ts and changeSettings.ts).
 */

/** What a link does: keep one of the digest's items for tomorrow, or change the share of one of its feeds. */
export type DigestAction =
  { kind: 'keep'; itemId: number } | { kind: 'fewer' | 'more' | 'mute' | 'unmute'; feedId: number };

/**
 * What a link of the "From your reading list" section does (digest/resurface.ts): archive one of the
 * reading-list items the digest offered, or keep it for tomorrow (the next digest offers it again).
 */
export type ReadingAction = { kind: 'archive' | 'tomorrow'; readingId: number };

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const hashToken = (token: string): string => hash('sha256', token, 'hex');

/**
 * One new token for each email (its account and digest), only the hashes stored, in the order given;
 * null for an email whose digest no longer exists or is not that account's. The account's expired tokens
 * are forgotten.
 */
export async function mintActionTokens(
  db: Kysely<Database>,
  emails: readonly { accountId: number; digestId: number }[],
  now: Date,
): Promise<(string | null)[]> {
  const tokens = emails.map((e) => {
    const token = randomBytes(32).toString('base64url');
    return { accountId: e.accountId, digestId: e.digestId, token, tokenHash: hashToken(token) };
  });
  const stored = await insertDigestActionTokens(db, tokens, {
    createdAt: now.toISOString(),
    pruneBefore: linksMadeSince('digest_action_tokens', now),
  });
  return tokens.map((t) => (stored.has(t.tokenHash) ? t.token : null));
}

/** The page (GET) and the action (POST) of one link: `…/digest-actions/TOKEN?do=keep&item=ID` and the like. */
export function actionUrl(baseUrl: string, token: string, action: DigestAction): string {
  const target = action.kind === 'keep' ? `item=${action.itemId}` : `feed=${action.feedId}`;
  return `${baseUrl.replace(/\/+$/, '')}/digest-actions/${token}?do=${action.kind}&${target}`;
}

/** `…/digest-actions/TOKEN?do=archive&reading=ID` (or `do=tomorrow`): the same page as actionUrl's. */
export function readingActionUrl(baseUrl: string, token: string, action: ReadingAction): string {
  return `${baseUrl.replace(/\/+$/, '')}/digest-actions/${token}?do=${action.kind}&reading=${action.readingId}`;
}

/**
 * The account and digest a presented token opens at `now`; null for anything else (malformed, unknown,
 * revoked, expired, of a disabled account).
 */
export async function digestOfActionToken(
  db: Kysely<Database>,
  presented: string,
  now: Date,
): Promise<{ accountId: number; digestId: number } | null> {
  if (!TOKEN_PATTERN.test(presented)) return null;
  return digestOfActionHash(db, hashToken(presented), linksMadeSince('digest_action_tokens', now));
}
