import type { Kysely } from 'kysely';
import type { Database, Timestamp } from './schema.js';

/** The local part of the account's inbound address; null until it has one. */
export async function newsletterToken(db: Kysely<Database>, accountId: number): Promise<string | null> {
  const row = await db
    .selectFrom('newsletter_addresses')
    .select('token')
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row?.token ?? null;
}

/**
 * Gives the account `token` unless it has one already (two first calls at once agree on one); the
 * account's token either way.
 */
export async function createNewsletterToken(
  db: Kysely<Database>,
  accountId: number,
  token: string,
  at: Timestamp,
): Promise<string> {
  await db
    .insertInto('newsletter_addresses')
    .values({ account_id: accountId, token, created_at: at })
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute();
  return (await newsletterToken(db, accountId)) ?? token;
}

/** Replaces the account's token (or gives it one): the old one finds no account from then on. */
export async function replaceNewsletterToken(
  db: Kysely<Database>,
  accountId: number,
  token: string,
  at: Timestamp,
): Promise<void> {
  await db
    .insertInto('newsletter_addresses')
    .values({ account_id: accountId, token, created_at: at })
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ token, created_at: at }))
    .execute();
}

/**
 * The accounts whose tokens these are, by token (an index look-up each); unknown tokens, and those of
 * disabled accounts (they take in nothing, as their feeds queue nothing), are absent.
 */
export async function accountsByNewsletterTokens(
  db: Kysely<Database>,
  tokens: readonly string[],
): Promise<Map<string, number>> {
  if (tokens.length === 0) return new Map();
  const rows = await db
    .selectFrom('newsletter_addresses as n')
    .innerJoin('accounts as a', 'a.id', 'n.account_id')
    .select(['n.token', 'n.account_id'])
    .where('n.token', 'in', tokens)
    .where('a.disabled_at', 'is', null)
    .execute();
  return new Map(rows.map((r) => [r.token, r.account_id]));
}
