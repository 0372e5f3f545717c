import { type Kysely, sql } from 'kysely';
import type { Database, Timestamp } from './schema.js';

/** The account an unsubscribe token (by its SHA-256, hex) belongs to; null when there is none. */
export async function accountIdByUnsubscribeHash(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<number | null> {
  const row = await db
    .selectFrom('unsubscribe_tokens')
    .select('account_id')
    .where('token_hash', '=', tokenHash)
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
export async function insertUnsubscribeTokens(
  db: Kysely<Database>,
  tokens: readonly { accountId: number; tokenHash: string }[],
  t: { createdAt: Timestamp; pruneBefore: Timestamp },
): Promise<Set<string>> {
  if (tokens.length === 0) return new Set();
  await db
    .deleteFrom('unsubscribe_tokens')
    .where(
      'account_id',
      'in',
      tokens.map((k) => k.accountId),
    )
    .where('created_at', '<', t.pruneBefore)
    .execute();
  // INSERT … SELECT: no row (and no foreign-key error) for an account that is not. VALUES' columns are
  // column1, column2… on both engines.
  const values = sql.join(
    tokens.map((k) => sql`(${k.tokenHash}, cast(${k.accountId} as integer), ${t.createdAt})`),
  );
  const { rows } = await sql<{ token_hash: string }>`
    insert into unsubscribe_tokens (token_hash, account_id, created_at)
    select v.column1, v.column2, v.column3 from (values ${values}) as v
    where v.column2 in (select id from accounts)
    returning token_hash`.execute(db);
  return new Set(rows.map((r) => r.token_hash));
}

/** Forgets every unsubscribe token of the account: the links of emails already sent stop working. */
export async function deleteUnsubscribeTokens(db: Kysely<Database>, accountId: number): Promise<number> {
  const result = await db
    .deleteFrom('unsubscribe_tokens')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
