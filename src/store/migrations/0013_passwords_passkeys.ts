import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './index.js';

/**
 * Signing in with a password or a passkey (issue 13), besides an API key.
 *
 * - account_passwords: at most one password per account, as a self-describing scrypt hash
 *   (`scrypt$N$r$p$salt$hash`, so that the cost can be raised later); never the password.
 * - passkeys: WebAuthn credentials. The credential id (base64url) is unique across accounts; the public key is
 *   bytes (blob on SQLite, bytea on PostgreSQL); the signature counter is a 32-bit unsigned number (bigint);
 *   the user handle the credential was made for (base64url, random per account, the same for all its passkeys).
 * - webauthn_challenges: the challenge of a ceremony under way, kept on the server, used once (deleted when
 *   read) and short-lived; adding a passkey also keeps the user handle it was offered with. Its id is a hash of what binds it: the session (adding a passkey) or the sign-in
 *   form's cookie (signing in).
 * - web_sessions: a session no longer needs an API key. `method` says how it was opened ('key', 'password',
 *   'passkey'); `passkey_id` names the passkey, whose deletion ends the session as revoking a key does.
 *   SQLite cannot drop a NOT NULL, so there the table is copied into a new one.
 */
export async function up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void> {
  await db.schema
    .createTable('account_passwords')
    .addColumn('account_id', 'integer', (c) =>
      c.primaryKey().references('accounts.id').onDelete('cascade').notNull(),
    )
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('passkeys')
    .addColumn('id', 'integer', ctx.idColumn)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('credential_id', 'text', (c) => c.notNull().unique())
    .addColumn('public_key', ctx.engine === 'sqlite' ? 'blob' : 'bytea', (c) => c.notNull())
    .addColumn('counter', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('transports', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('user_handle', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('passkeys_account_idx').on('passkeys').column('account_id').execute();

  await db.schema
    .createTable('webauthn_challenges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'integer', (c) => c.references('accounts.id').onDelete('cascade'))
    .addColumn('challenge', 'text', (c) => c.notNull())
    .addColumn('user_handle', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webauthn_challenges_expiry_idx')
    .on('webauthn_challenges')
    .column('expires_at')
    .execute();

  if (ctx.engine === 'postgres') {
    await sql`alter table web_sessions alter column key_id drop not null`.execute(db);
    await db.schema
      .alterTable('web_sessions')
      .addColumn('method', 'text', (c) => c.notNull().defaultTo('key'))
      .execute();
    await db.schema
      .alterTable('web_sessions')
      .addColumn('passkey_id', 'integer', (c) => c.references('passkeys.id').onDelete('cascade'))
      .execute();
  } else {
    await db.schema
      .createTable('web_sessions_0013')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
      .addColumn('key_id', 'integer', (c) => c.references('api_keys.id').onDelete('cascade'))
      .addColumn('csrf_token', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull().defaultTo('key'))
      .addColumn('passkey_id', 'integer', (c) => c.references('passkeys.id').onDelete('cascade'))
      .execute();
    await sql`insert into web_sessions_0013 (id, account_id, key_id, csrf_token, created_at, expires_at, method)
      select id, account_id, key_id, csrf_token, created_at, expires_at, 'key' from web_sessions`.execute(db);
    await db.schema.dropTable('web_sessions').execute();
    await db.schema.alterTable('web_sessions_0013').renameTo('web_sessions').execute();
    await db.schema.createIndex('web_sessions_account_idx').on('web_sessions').column('account_id').execute();
    await db.schema.createIndex('web_sessions_key_idx').on('web_sessions').column('key_id').execute();
    await db.schema.createIndex('web_sessions_expiry_idx').on('web_sessions').column('expires_at').execute();
  }
  await db.schema.createIndex('web_sessions_passkey_idx').on('web_sessions').column('passkey_id').execute();
}
