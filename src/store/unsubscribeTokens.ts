import type { Kysely } from 'kysely';
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
  await db
    .deleteFrom('unsubscribe_tokens')
    .where('account_id', '=', accountId)
    .where('created_at', '<', t.pruneBefore)
    .execute();
  const result = await db
    .insertInto('unsubscribe_tokens')
    .columns(['token_hash', 'account_id', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom('accounts')
        .select((s) => [s.val(t.tokenHash).as('token_hash'), 'id', s.val(t.createdAt).as('created_at')])
        .where('id', '=', accountId),
    )
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

/** Forgets every unsubscribe token of the account: the links of emails already sent stop working. */
export async function deleteUnsubscribeTokens(db: Kysely<Database>, accountId: number): Promise<number> {
  const result = await db
    .deleteFrom('unsubscribe_tokens')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
