import type { Kysely } from 'kysely';

/**
 * The private link of each account's OPDS catalogue (issue 35, point 4): `/opds?token=T`, for e-reader
 * apps that cannot send a password. Only the token's SHA-256 is kept (it is shown once, when made); one
 * per account, replaced to rotate, deleted to revoke, gone with the account.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('opds_tokens')
    .addColumn('account_id', 'integer', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
