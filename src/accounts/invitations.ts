import { TidingsError } from '../errors.js';
import { emailAddressProblem } from '../lib/email.js';
import type { Store } from '../store/db.js';
import { EMAIL_TAKEN_MESSAGE, emailInUse } from '../store/accountEmails.js';
import {
  type Invitation,
  createInvitation,
  deleteUnusedInvitation,
  invitationByTokenHash,
  pendingInvitations,
  useInvitation,
} from '../store/invitations.js';
import { transaction } from '../store/precompiled.js';
import type { AccountId } from './authorize.js';
import { hashKey } from './keys.js';
import {
  type AccountInput,
  type CreatedAccount,
  checkAccountInput,
  insertAccountWithKey,
} from './service.js';
import { randomToken } from './sessions.js';

export type { Invitation } from '../store/invitations.js';

/**
 * Invitations: an administrator makes a link (single use, expiring); whoever opens it names their account
 * and has it, signed in. The link carries 256 random bits; only their SHA-256 is stored, and the link is
 * shown once, when it is made. Accepting marks the invitation used in the same transaction that creates
 * the account, under the condition that it is still unused and unexpired: two acceptances of one link
 * make one account.
 */

/** How long a new invitation may work, in days: the choices the web offers. */
export const INVITATION_DAYS = [1, 7, 30] as const;
export const DEFAULT_INVITATION_DAYS = 7;
const NOTE_MAX = 200;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The address of an invitation's page. */
export const invitationUrl = (baseUrl: string, token: string): string =>
  `${baseUrl.replace(/\/+$/, '')}/invite/${token}`;

/** Makes an invitation; the token (for the link) is returned once. */
export async function inviteAccount(
  store: Store,
  by: AccountId,
  input: { days: number; note?: string | undefined; email?: string | undefined },
  now: Date = new Date(),
): Promise<{ token: string; invitation: Invitation }> {
  if (!INVITATION_DAYS.some((d) => d === input.days)) {
    throw new TidingsError('invalid_input', `an invitation lasts ${INVITATION_DAYS.join(', ')} days`);
  }
  const note = input.note?.trim() ?? '';
  if (note.length > NOTE_MAX) {
    throw new TidingsError('invalid_input', `the note must be at most ${NOTE_MAX} characters`, {
      facts: { reason: 'note_too_long', max: NOTE_MAX },
    });
  }
  const email = input.email?.trim() ?? '';
  const problem = email === '' ? null : emailAddressProblem(email);
  if (problem !== null) {
    throw new TidingsError('invalid_input', `not an email address: ${email} (${problem})`, {
      facts: { reason: 'email_invalid', email },
    });
  }
  // The new account would start with it: an address another account has is refused now, not on acceptance.
  if (email !== '' && (await emailInUse(store.db, email))) {
    throw new TidingsError('email_taken', EMAIL_TAKEN_MESSAGE);
  }
  const token = randomToken();
  const invitation = await createInvitation(store.db, {
    tokenHash: hashKey(token),
    createdBy: by,
    note: note === '' ? null : note,
    email: email === '' ? null : email,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + input.days * DAY_MS).toISOString(),
  });
  return { token, invitation };
}

/** Invitations that still work, newest first. */
export function openInvitations(store: Store, now: Date = new Date()): Promise<Invitation[]> {
  return pendingInvitations(store.db, now.toISOString());
}

/** Withdraws an unused invitation; false when there is no such unused one. */
export function revokeInvitation(store: Store, invitationId: number): Promise<boolean> {
  return deleteUnusedInvitation(store.db, invitationId);
}

export type InvitationState =
  { state: 'open'; invitation: Invitation } | { state: 'used' | 'expired' | 'unknown' };

/** What a presented token is: an invitation that still works, one used or expired, or nothing. */
export async function invitationFor(
  store: Store,
  token: string,
  now: Date = new Date(),
): Promise<InvitationState> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return { state: 'unknown' };
  const invitation = await invitationByTokenHash(store.db, hashKey(token));
  if (invitation === null) return { state: 'unknown' };
  if (invitation.used_at !== null) return { state: 'used' };
  if (invitation.expires_at <= now.toISOString()) return { state: 'expired' };
  return { state: 'open', invitation };
}

/** Why an invitation cannot be accepted, in words for the person holding it. */
export const CLOSED_INVITATION: Record<Exclude<InvitationState['state'], 'open'>, string> = {
  used: 'This invitation has been used already: each works once. Ask for a new one.',
  expired: 'This invitation has expired. Ask for a new one.',
  unknown: 'There is no such invitation. Check that the whole link was copied, or ask for a new one.',
};

/**
 * Accepts an invitation: creates the account (never an administrator) with its first API key, and marks
 * the invitation used by it, in one transaction. invalid_input for what the person typed; not_found (with
 * the reason) when the invitation is used, expired or unknown, also when another acceptance won.
 */
export async function acceptInvitation(
  store: Store,
  token: string,
  input: Omit<AccountInput, 'admin'>,
  now: Date = new Date(),
): Promise<CreatedAccount> {
  const checked = checkAccountInput({ ...input, admin: false });
  const found = await invitationFor(store, token, now);
  if (found.state !== 'open') throw new TidingsError('not_found', CLOSED_INVITATION[found.state]);
  return transaction(store.db, async (trx) => {
    const created = await insertAccountWithKey(trx, store.engine, checked);
    const used = await useInvitation(trx, found.invitation.id, {
      accountId: created.account.id,
      now: now.toISOString(),
    });
    if (!used) throw new TidingsError('not_found', CLOSED_INVITATION.used);
    return created;
  });
}
