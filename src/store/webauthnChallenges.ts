import type { Kysely } from 'kysely';
import type { Database, Timestamp } from './schema.js';

/**
 * Keeps a challenge under its binding id, replacing one already kept there; forgets expired challenges
 * first (so that the table holds only ceremonies under way).
 */
export async function saveWebauthnChallenge(
  db: Kysely<Database>,
  accountId: number | null,
  input: { id: string; challenge: string; userHandle: string | null; expiresAt: Timestamp; now: Timestamp },
): Promise<void> {
  await db.deleteFrom('webauthn_challenges').where('expires_at', '<=', input.now).execute();
  await db.deleteFrom('webauthn_challenges').where('id', '=', input.id).execute();
  await db
    .insertInto('webauthn_challenges')
    .values({
      id: input.id,
      account_id: accountId,
      challenge: input.challenge,
      user_handle: input.userHandle,
      expires_at: input.expiresAt,
    })
    .execute();
}

/**
 * Takes the challenge kept under this id, if it has not expired: deleted as it is read, so a challenge is
 * answered once at most. The caller checks it belongs to the account it expects.
 */
export async function takeWebauthnChallenge(
  db: Kysely<Database>,
  id: string,
  now: Timestamp,
): Promise<{ accountId: number | null; challenge: string; userHandle: string | null } | null> {
  const row = await db
    .deleteFrom('webauthn_challenges')
    .where('id', '=', id)
    .returning(['account_id', 'challenge', 'user_handle', 'expires_at'])
    .executeTakeFirst();
  if (row === undefined || row.expires_at <= now) return null;
  return { accountId: row.account_id, challenge: row.challenge, userHandle: row.user_handle };
}
