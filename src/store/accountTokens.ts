import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Database, Timestamp } from './schema.js';

/*
 * The tables of an email's private links, only each token's SHA-256 kept, every row an account's:
 * unsubscribe_tokens (the account) and digest_action_tokens (the account and one of its digests). New
 * tokens are kept, and the old ones of the same accounts forgotten, the same way for both: the one place
 * of that rule.
 */

/** A token table, and what makes a new row's owner real (no row, and no foreign-key error, otherwise). */
const TABLES = {
  unsubscribe_tokens: {
    columns: sql`token_hash, account_id, created_at`,
    owned: sql`v.column2 in (select id from accounts)`,
  },
  digest_action_tokens: {
    columns: sql`token_hash, account_id, created_at, digest_id`,
    owned: sql`exists (select 1 from digests d where d.id = v.column4 and d.account_id = v.column2)`,
  },
} as const satisfies Record<string, { columns: RawBuilder<unknown>; owned: RawBuilder<unknown> }>;

export type TokenTable = keyof typeof TABLES;

/** A new token's row: digestId for digest_action_tokens only. */
export interface TokenRow {
  accountId: number;
  tokenHash: string;
  digestId?: number;
}

/**
 * Keeps the hashes of new tokens and forgets the tokens of those accounts made before `pruneBefore`, in
 * two statements; returns the hashes kept (a token whose owner is not, as TABLES says, gets none).
 */
export async function insertAccountTokens(
  db: Kysely<Database>,
  table: TokenTable,
  tokens: readonly TokenRow[],
  t: { createdAt: Timestamp; pruneBefore: Timestamp },
): Promise<Set<string>> {
  if (tokens.length === 0) return new Set();
  await db
    .deleteFrom(table)
    .where(
      'account_id',
      'in',
      tokens.map((k) => k.accountId),
    )
    .where('created_at', '<', t.pruneBefore)
    .execute();
  // INSERT … SELECT, so that the owner's check is in the statement. VALUES' columns are column1, column2…
  // on both engines; numbers are cast so that PostgreSQL compares them as integers.
  const withDigest = table === 'digest_action_tokens';
  const values = sql.join(
    tokens.map((k) =>
      withDigest
        ? sql`(${k.tokenHash}, cast(${k.accountId} as integer), ${t.createdAt}, cast(${k.digestId ?? null} as integer))`
        : sql`(${k.tokenHash}, cast(${k.accountId} as integer), ${t.createdAt})`,
    ),
  );
  const { columns, owned } = TABLES[table];
  const selected = withDigest
    ? sql`v.column1, v.column2, v.column3, v.column4`
    : sql`v.column1, v.column2, v.column3`;
  const { rows } = await sql<{ token_hash: string }>`
    insert into ${sql.table(table)} (${columns})
    select ${selected} from (values ${values}) as v
    where ${owned}
    returning token_hash`.execute(db);
  return new Set(rows.map((r) => r.token_hash));
}

/**
 * Forgets at most `limit` tokens of the table, of any account, made before `madeBefore` (the oldest first):
 * how many. Expired tokens are refused when used; this only keeps the table to the tokens that still work,
 * a bounded batch at a time (an old database's backlog goes over several passes, never in one long
 * statement), through the index on created_at (migration 0036).
 */
export async function deleteTokensMadeBefore(
  db: Kysely<Database>,
  table: TokenTable,
  madeBefore: Timestamp,
  limit: number,
): Promise<number> {
  const { numAffectedRows } = await sql`
    delete from ${sql.table(table)} where token_hash in (
      select token_hash from ${sql.table(table)} where created_at < ${madeBefore}
      order by created_at limit ${limit})`.execute(db);
  return Number(numAffectedRows ?? 0n);
}
