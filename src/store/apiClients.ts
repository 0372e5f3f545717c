import type { Kysely, Selectable } from 'kysely';
import type { Database, Timestamp } from './schema.js';
import type { ApiClientsTable } from './schemaApiClients.js';

/* api_clients (migration 0050): the apps an account let in to the wallabag-compatible API. */

export type ApiClientRow = Selectable<ApiClientsTable>;
/** What a listing shows: never the secret's hash. */
export type ApiClientInfo = Omit<ApiClientRow, 'secret_hash'>;

export async function insertApiClient(
  db: Kysely<Database>,
  accountId: number,
  client: { name: string; clientId: string; secretHash: string },
  at: Timestamp,
): Promise<ApiClientInfo> {
  return db
    .insertInto('api_clients')
    .values({
      account_id: accountId,
      name: client.name,
      client_id: client.clientId,
      secret_hash: client.secretHash,
      created_at: at,
    })
    .returning(['id', 'account_id', 'name', 'client_id', 'created_at', 'last_used_at'])
    .executeTakeFirstOrThrow();
}

/** The account's clients, oldest first. */
export function apiClientsOf(db: Kysely<Database>, accountId: number): Promise<ApiClientInfo[]> {
  return db
    .selectFrom('api_clients')
    .select(['id', 'account_id', 'name', 'client_id', 'created_at', 'last_used_at'])
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();
}

/** A client by its public id (what an app sends); null when there is none. */
export async function apiClientByPublicId(
  db: Kysely<Database>,
  clientId: string,
): Promise<ApiClientRow | null> {
  const row = await db
    .selectFrom('api_clients')
    .selectAll()
    .where('client_id', '=', clientId)
    .executeTakeFirst();
  return row ?? null;
}

/** One client of the account; null when it has none of that id. */
export async function apiClientOf(
  db: Kysely<Database>,
  accountId: number,
  id: number,
): Promise<ApiClientInfo | null> {
  const row = await db
    .selectFrom('api_clients')
    .select(['id', 'account_id', 'name', 'client_id', 'created_at', 'last_used_at'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ?? null;
}

/** Deletes one of the account's clients and every token it was given; false when it has none of that id. */
export async function deleteApiClient(db: Kysely<Database>, accountId: number, id: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('api_tokens')
      .where('client_id', '=', id)
      .where('account_id', '=', accountId)
      .execute();
    const result = await trx
      .deleteFrom('api_clients')
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  });
}

export async function touchApiClient(db: Kysely<Database>, id: number, at: Timestamp): Promise<void> {
  await db.updateTable('api_clients').set({ last_used_at: at }).where('id', '=', id).execute();
}
