import type { Kysely } from 'kysely';
import { accountMayAct } from './accounts.js';
import type { Database, Timestamp } from './schema.js';

/** The private token of an account's digest URLs, as stored. */
export interface DigestTokenRow {
  account_id: number;
  token: string;
  token_hash: string;
  created_at: Timestamp;
}

export interface NewDigestToken {
  token: string;
  tokenHash: string;
  createdAt: Timestamp;
}

const columns = ['account_id', 'token', 'token_hash', 'created_at'] as const;

/** The account's token; null when it has none yet. */
export async function digestTokenByAccount(
  db: Kysely<Database>,
  accountId: number,
): Promise<DigestTokenRow | null> {
  const row = await db
    .selectFrom('digest_tokens')
    .select(columns)
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row ?? null;
}

/** The token with this SHA-256 (hex) of an account that may act (not disabled); null when there is none. */
export async function digestTokenByHash(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<DigestTokenRow | null> {
  const row = await db
    .selectFrom('digest_tokens')
    .select(columns)
    .where('token_hash', '=', tokenHash)
    .where(accountMayAct('digest_tokens.account_id'))
    .executeTakeFirst();
  return row ?? null;
}

/**
 * Gives the account this token unless it has one already (another process may have been first). Writes
 * nothing when there is no such account.
 */
export async function createDigestTokenIfAbsent(
  db: Kysely<Database>,
  accountId: number,
  t: NewDigestToken,
): Promise<void> {
  await insertForAccount(db, accountId, t)
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute();
}

/** The tokens of these accounts, by account (those without one are absent). */
export async function digestTokensByAccounts(
  db: Kysely<Database>,
  accountIds: readonly number[],
): Promise<Map<number, string>> {
  if (accountIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('digest_tokens')
    .select(['account_id', 'token'])
    .where('account_id', 'in', accountIds)
    .execute();
  return new Map(rows.map((r) => [r.account_id, r.token]));
}

/**
 * createDigestTokenIfAbsent for several accounts in one statement, for a caller that holds their rows
 * (they exist).
 */
export async function createDigestTokensIfAbsent(
  db: Kysely<Database>,
  tokens: readonly (NewDigestToken & { accountId: number })[],
): Promise<void> {
  if (tokens.length === 0) return;
  await db
    .insertInto('digest_tokens')
    .values(
      tokens.map((t) => ({
        account_id: t.accountId,
        token: t.token,
        token_hash: t.tokenHash,
        created_at: t.createdAt,
      })),
    )
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute();
}

/**
 * Gives the account this token in place of the one it had, if any: the old one stops working at once.
 * False when there is no such account.
 */
export async function replaceDigestToken(
  db: Kysely<Database>,
  accountId: number,
  t: NewDigestToken,
): Promise<boolean> {
  const result = await insertForAccount(db, accountId, t)
    .onConflict((oc) =>
      oc
        .column('account_id')
        .doUpdateSet({ token: t.token, token_hash: t.tokenHash, created_at: t.createdAt }),
    )
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

/** INSERT … SELECT from the account's row: no row (and no foreign-key error) for an account that is not. */
function insertForAccount(db: Kysely<Database>, accountId: number, t: NewDigestToken) {
  return db
    .insertInto('digest_tokens')
    .columns(['account_id', 'token', 'token_hash', 'created_at'])
    .expression((eb) =>
      eb
        .selectFrom('accounts')
        .select((s) => [
          'id',
          s.val(t.token).as('token'),
          s.val(t.tokenHash).as('token_hash'),
          s.val(t.createdAt).as('created_at'),
        ])
        .where('id', '=', accountId),
    );
}
