import type { Kysely } from 'kysely';
import { insertAccountTokens } from './accountTokens.js';
import { accountMayAct } from './accounts.js';
import type { Database, Timestamp } from './schema.js';

/**
 * The account an unsubscribe token (by its SHA-256, hex) belongs to, when it was made at or after
 * `madeSince` (it has not outlived its lifetime: digest/linkLifetimes.ts) and the account may act (not
 * disabled); null otherwise.
 */
export async function accountIdByUnsubscribeHash(
  db: Kysely<Database>,
  tokenHash: string,
  madeSince: Timestamp,
): Promise<number | null> {
  const row = await db
    .selectFrom('unsubscribe_tokens')
    .select('account_id')
    .where('token_hash', '=', tokenHash)
    .where('created_at', '>=', madeSince)
    .where(accountMayAct('unsubscribe_tokens.account_id'))
    .executeTakeFirst();
  return row?.account_id ?? null;
}

/**
 * Keeps the hash of a new token of the account and forgets its tokens made before `pruneBefore`. False
 * (nothing written) when there is no such account.
 */
export async function insertUnsubscribeToken(
  db: Kysely<Database>,
  accountId: number,
  t: { tokenHash: string; createdAt: Timestamp; pruneBefore: Timestamp },
): Promise<boolean> {
  const stored = await insertUnsubscribeTokens(db, [{ accountId, tokenHash: t.tokenHash }], t);
  return stored.has(t.tokenHash);
}

/**
 * insertUnsubscribeToken for several tokens at once (a batch of emails, an account may have several), in
 * two statements; returns the hashes kept (an account that no longer exists gets none).
 */
export function insertUnsubscribeTokens(
  db: Kysely<Database>,
  tokens: readonly { accountId: number; tokenHash: string }[],
  t: { createdAt: Timestamp; pruneBefore: Timestamp },
): Promise<Set<string>> {
  return insertAccountTokens(db, 'unsubscribe_tokens', tokens, t);
}

/** Forgets every unsubscribe token of the account: the links of emails already sent stop working. */
export async function deleteUnsubscribeTokens(db: Kysely<Database>, accountId: number): Promise<number> {
  const result = await db
    .deleteFrom('unsubscribe_tokens')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
