import type { Kysely } from 'kysely';
import { accountMayAct } from './accounts.js';
import type { Database, Timestamp } from './schema.js';

/* The private links of OPDS catalogues (migration 0060): one token hash per account. */

/**
 * Gives the account this token hash, replacing the one it had (whose link stops working); false when
 * there is no such account.
 */
export async function replaceOpdsToken(
  db: Kysely<Database>,
  accountId: number,
  tokenHash: string,
  createdAt: Timestamp,
): Promise<boolean> {
  const result = await db
    .insertInto('opds_tokens')
    .columns(['account_id', 'token_hash', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom('accounts')
        .select((s) => ['id', s.val(tokenHash).as('token_hash'), s.val(createdAt).as('created_at')])
        .where('id', '=', accountId),
    )
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ token_hash: tokenHash, created_at: createdAt }))
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

/** Forgets the account's token (its link stops working); false when it had none. */
export async function deleteOpdsToken(db: Kysely<Database>, accountId: number): Promise<boolean> {
  const result = await db.deleteFrom('opds_tokens').where('account_id', '=', accountId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The account whose token has this hash, when it may act (not disabled); null otherwise. */
export async function accountIdByOpdsTokenHash(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<number | null> {
  const row = await db
    .selectFrom('opds_tokens')
    .select('account_id')
    .where('token_hash', '=', tokenHash)
    .where(accountMayAct('opds_tokens.account_id'))
    .executeTakeFirst();
  return row?.account_id ?? null;
}

/** When the account's token was made; null when it has none. */
export async function opdsTokenCreatedAt(db: Kysely<Database>, accountId: number): Promise<Timestamp | null> {
  const row = await db
    .selectFrom('opds_tokens')
    .select('created_at')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row?.created_at ?? null;
}
