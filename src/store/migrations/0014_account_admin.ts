import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './index.js';

/**
 * Accounts managed on the web (issue 13, part 2).
 *
 * - accounts.is_admin: 1 for an administrator, who manages the other accounts and invitations on the web.
 *   The lowest-id existing account (the first one created) becomes the administrator.
 * - accounts.disabled_at: when an administrator (or the operator) disabled the account; null while enabled.
 *   A disabled account cannot sign in, its API keys are refused and it gets no digests.
 * - invitations: single-use, expiring links to create an account. Only the SHA-256 of the random token is
 *   kept (as for API keys and sessions); the link is shown once, when it is made.
 */
export async function up(db: Kysely<unknown>, { idColumn }: MigrationContext): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('accounts').addColumn('disabled_at', 'text').execute();
  await sql`update accounts set is_admin = 1 where id = (select min(id) from accounts)`.execute(db);

  await db.schema
    .createTable('invitations')
    .addColumn('id', 'integer', idColumn)
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_by', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('note', 'text')
    .addColumn('email', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('used_by_account_id', 'integer', (c) => c.references('accounts.id').onDelete('set null'))
    .execute();
  await db.schema.createIndex('invitations_creator_idx').on('invitations').column('created_by').execute();
  await db.schema
    .createIndex('invitations_used_by_idx')
    .on('invitations')
    .column('used_by_account_id')
    .execute();
}
