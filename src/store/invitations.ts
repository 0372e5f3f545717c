import type { Kysely, Selectable } from 'kysely';
import { accountMayAct } from './accounts.js';
import type { Database, InvitationsTable, Timestamp } from './schema.js';

/** An invitation as stored (without its token's hash, which only the look-up by token needs). */
export type Invitation = Omit<Selectable<InvitationsTable>, 'token_hash'>;

const columns = [
  'id',
  'created_by',
  'note',
  'email',
  'created_at',
  'expires_at',
  'used_at',
  'used_by_account_id',
] as const;

export async function createInvitation(
  db: Kysely<Database>,
  input: {
    tokenHash: string;
    createdBy: number;
    note: string | null;
    email: string | null;
    createdAt: Timestamp;
    expiresAt: Timestamp;
  },
): Promise<Invitation> {
  return db
    .insertInto('invitations')
    .values({
      token_hash: input.tokenHash,
      created_by: input.createdBy,
      note: input.note,
      email: input.email,
      created_at: input.createdAt,
      expires_at: input.expiresAt,
    })
    .returning(columns)
    .executeTakeFirstOrThrow();
}

/**
 * The invitation whose token has this hash (used, expired or not); null when there is none, or when its
 * maker may not act (disabled): an invitation acts for the administrator who made it.
 */
export async function invitationByTokenHash(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<Invitation | null> {
  const row = await db
    .selectFrom('invitations')
    .select(columns)
    .where('token_hash', '=', tokenHash)
    .where(accountMayAct('invitations.created_by'))
    .executeTakeFirst();
  return row ?? null;
}

/** Invitations not used and not expired at `now` whose maker may act (not disabled), newest first. */
export async function pendingInvitations(db: Kysely<Database>, now: Timestamp): Promise<Invitation[]> {
  return db
    .selectFrom('invitations')
    .select(columns)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .where(accountMayAct('invitations.created_by'))
    .orderBy('id', 'desc')
    .execute();
}

/**
 * Marks an invitation used by `accountId` if it still is neither used nor expired at `now`; false when
 * another acceptance took it first (or it ran out). The one write that makes an invitation single-use.
 */
export async function useInvitation(
  db: Kysely<Database>,
  invitationId: number,
  input: { accountId: number; now: Timestamp },
): Promise<boolean> {
  const result = await db
    .updateTable('invitations')
    .set({ used_at: input.now, used_by_account_id: input.accountId })
    .where('id', '=', invitationId)
    .where('used_at', 'is', null)
    .where('expires_at', '>', input.now)
    .where(accountMayAct('invitations.created_by'))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Deletes an invitation that has not been used; false when there is no such unused invitation. */
export async function deleteUnusedInvitation(db: Kysely<Database>, invitationId: number): Promise<boolean> {
  const result = await db
    .deleteFrom('invitations')
    .where('id', '=', invitationId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
