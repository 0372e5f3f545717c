import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './index.js';

/**
 * The wallabag-compatible API (issue 35): its clients, their tokens, and what a wallabag entry has that
 * the reading list did not.
 *
 * - api_clients: an app an account let in (`tidings client create`, Settings → Apps). `client_id` is
 *   public (typed into the app), `secret_hash` the SHA-256 of its secret, which is shown once. A client
 *   belongs to one account and signs in only that one. Deleting it (revoking) takes its tokens.
 * - api_tokens: OAuth tokens a client was given, `kind` 'access' (an hour) or 'refresh' (14 days), by the
 *   SHA-256 of the token (`token_hash`, unique); bound to the client and the account.
 * - reading_list.starred_at / archived_at: when the entry was starred (null: not starred) and archived
 *   (null: not archived; set by every path that archives, the web's and the digest's too).
 *   reading_list_updated_idx serves the clients' `sort=updated` and `since` reads.
 * - reading_list.url_hash: the SHA-1 (hex) of the URL as saved, wallabag's `hashed_url`, which clients
 *   compute to ask whether a URL is saved (GET /api/entries/exists.json?hashed_url=…); reading_list_hash_idx
 *   finds it. Items saved before are given theirs here, a thousand at a time.
 * - reading_tags: a stable number for each tag label an account uses (wallabag's tags have ids); the
 *   labels themselves stay in reading_list.tags, the one place an entry's tags are kept.
 */
export async function up(db: Kysely<unknown>, { idColumn }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('api_clients')
    .addColumn('id', 'integer', idColumn)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull().unique())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await sql`CREATE INDEX api_clients_account_idx ON api_clients (account_id)`.execute(db);

  await db.schema
    .createTable('api_tokens')
    .addColumn('id', 'integer', idColumn)
    .addColumn('client_id', 'integer', (c) => c.notNull().references('api_clients.id').onDelete('cascade'))
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await sql`CREATE INDEX api_tokens_client_idx ON api_tokens (client_id)`.execute(db);
  await sql`CREATE INDEX api_tokens_expires_idx ON api_tokens (expires_at)`.execute(db);

  await db.schema.alterTable('reading_list').addColumn('starred_at', 'text').execute();
  await db.schema.alterTable('reading_list').addColumn('archived_at', 'text').execute();
  // Items archived before: archived when last changed, the best date there is.
  await sql`UPDATE reading_list SET archived_at = updated_at WHERE state = 'archived'`.execute(db);
  await sql`CREATE INDEX reading_list_updated_idx ON reading_list (account_id, updated_at)`.execute(db);
  await db.schema.alterTable('reading_list').addColumn('url_hash', 'text').execute();
  await backfillUrlHashes(db);
  await sql`CREATE INDEX reading_list_hash_idx ON reading_list (account_id, url_hash)`.execute(db);

  await db.schema
    .createTable('reading_tags')
    .addColumn('id', 'integer', idColumn)
    .addColumn('account_id', 'integer', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('label', 'text', (c) => c.notNull())
    .addUniqueConstraint('reading_tags_label_unique', ['account_id', 'label'])
    .execute();
}

/** Each item's url_hash, a batch of a thousand a statement (one UPDATE … FROM VALUES-less CASE). */
async function backfillUrlHashes(db: Kysely<unknown>): Promise<void> {
  for (;;) {
    const { rows } = await sql<{ id: number; url: string }>`
      SELECT id, url FROM reading_list WHERE url_hash IS NULL ORDER BY id LIMIT 1000`.execute(db);
    if (rows.length === 0) return;
    const cases = sql.join(
      rows.map((r) => sql`WHEN ${r.id} THEN ${createHash('sha1').update(r.url).digest('hex')}`),
      sql` `,
    );
    const ids = sql.join(rows.map((r) => sql`${r.id}`));
    await sql`UPDATE reading_list SET url_hash = CASE id ${cases} END WHERE id IN (${ids})`.execute(db);
  }
}
