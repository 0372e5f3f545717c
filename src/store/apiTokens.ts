import type { Kysely } from 'kysely';
import type { Database, Timestamp } from './schema.js';
import type { ApiTokenKind } from './schemaApiClients.js';

/* api_tokens (migration 0050): the OAuth tokens given to the wallabag-compatible API's clients. */

export interface NewApiToken {
  kind: ApiTokenKind;
  tokenHash: string;
  expiresAt: Timestamp;
}

/** Stores tokens given to a client (of `accountId`). */
export async function insertApiTokens(
  db: Kysely<Database>,
  accountId: number,
  clientId: number,
  tokens: readonly NewApiToken[],
  at: Timestamp,
): Promise<void> {
  await db
    .insertInto('api_tokens')
    .values(
      tokens.map((t) => ({
        client_id: clientId,
        account_id: accountId,
        kind: t.kind,
        token_hash: t.tokenHash,
        expires_at: t.expiresAt,
        created_at: at,
      })),
    )
    .execute();
}

/**
 * A live token of this kind by its hash, with its client and account; null when none, expired, its client
 * revoked or its account disabled.
 */
export async function liveToken(
  db: Kysely<Database>,
  kind: ApiTokenKind,
  tokenHash: string,
  at: Timestamp,
): Promise<{ id: number; clientId: number; accountId: number } | null> {
  const row = await db
    .selectFrom('api_tokens as t')
    .innerJoin('api_clients as c', 'c.id', 't.client_id')
    .innerJoin('accounts as a', 'a.id', 't.account_id')
    .select(['t.id', 't.client_id as clientId', 't.account_id as accountId'])
    .where('t.token_hash', '=', tokenHash)
    .where('t.kind', '=', kind)
    .where('t.expires_at', '>', at)
    .whereRef('c.account_id', '=', 't.account_id')
    .where('a.disabled_at', 'is', null)
    .executeTakeFirst();
  return row ?? null;
}

/** Deletes one token (a refresh token is used once); false when it was already gone. */
export async function deleteApiToken(db: Kysely<Database>, id: number): Promise<boolean> {
  const result = await db.deleteFrom('api_tokens').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Forgets up to `limit` tokens expired before `at`; how many. */
export async function deleteExpiredApiTokens(
  db: Kysely<Database>,
  at: Timestamp,
  limit: number,
): Promise<number> {
  const result = await db
    .deleteFrom('api_tokens')
    .where('id', 'in', (eb) =>
      eb.selectFrom('api_tokens').select('id').where('expires_at', '<=', at).limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
