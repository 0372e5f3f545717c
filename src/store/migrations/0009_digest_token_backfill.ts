import { hash, randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';

/**
 * Every account has its digest token from now on: new accounts get theirs when they are created, and
 * accounts from before tokens (which got one on first use) get theirs here, so that reading a digest or
 * the keys page never has to write one. The token's form is migration 0006's: 256 random bits as 43
 * characters of base64url, found by its SHA-256 (hex).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{ id: number }>`
    select id from accounts where id not in (select account_id from digest_tokens) order by id`.execute(db);
  const createdAt = new Date().toISOString();
  for (const { id } of rows) {
    const token = randomBytes(32).toString('base64url');
    await sql`insert into digest_tokens (account_id, token, token_hash, created_at)
      values (${id}, ${token}, ${hash('sha256', token, 'hex')}, ${createdAt})`.execute(db);
  }
}
