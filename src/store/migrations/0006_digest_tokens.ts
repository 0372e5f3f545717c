import type { Kysely } from 'kysely';

/**
 * The private token of each account's digest URLs (the web page of a digest and the Atom feed of its
 * digests). Unlike API keys, which are stored only as hashes, the token itself is kept: links carrying it
 * go into every digest email built later, so it must be readable. It is a read-only capability (it shows
 * digests, changes nothing), found by its SHA-256 and then compared in constant time, and revoked by
 * replacing it. Made on first use, so accounts from before this migration get theirs when they need it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('digest_tokens')
    .addColumn('account_id', 'integer', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
