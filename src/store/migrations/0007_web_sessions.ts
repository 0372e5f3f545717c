import type { Kysely } from 'kysely';

/**
 * Sessions of the web app, kept in the database so that every instance sees them and signing out (or
 * revoking the key a browser signed in with) ends them at once. The cookie carries a random token; only
 * its SHA-256 is stored (the row's id), so the table alone cannot be used to sign in. Each session has
 * its own CSRF token, checked on every form.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('web_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('key_id', 'integer', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('web_sessions_account_idx').on('web_sessions').column('account_id').execute();
  await db.schema.createIndex('web_sessions_key_idx').on('web_sessions').column('key_id').execute();
  await db.schema.createIndex('web_sessions_expiry_idx').on('web_sessions').column('expires_at').execute();
}
