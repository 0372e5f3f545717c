import type { Kysely } from 'kysely';

/**
 * One-click unsubscribe (issue 13, part 4).
 *
 * - unsubscribe_tokens: the private links of the List-Unsubscribe header and of the email's footer. A new
 *   token is made for each email sent, and only its SHA-256 is kept (as API keys are): the email is the
 *   only place the token itself exists. Every token of an account opens that account's unsubscribe page,
 *   nothing else; deleting the account's rows revokes every link already sent. Old ones are pruned.
 * - accounts.email_paused_until: "pause for a week": digests are still built (and read on the web and in
 *   Atom) but not emailed before this time; null when not paused.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('unsubscribe_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('unsubscribe_tokens_account_idx')
    .on('unsubscribe_tokens')
    .columns(['account_id', 'created_at'])
    .execute();
  await db.schema.alterTable('accounts').addColumn('email_paused_until', 'text').execute();
}
