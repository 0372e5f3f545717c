import { TidingsError } from '../errors.js';
import type { Store } from '../store/db.js';
import {
  deletePassword,
  passwordCandidates,
  passwordHashOf,
  passwordSetAt,
  savePasswordHash,
} from '../store/accountPasswords.js';
import { deletePasswordSessions } from '../store/webSessions.js';
import { type AccountId, grantAccount } from './authorize.js';
import { type PasswordHolds, accountHoldKey, identifierHoldKey } from './passwordHolds.js';
import {
  dummyHash,
  hashPassword,
  needsRehash,
  passwordRefusal,
  passwordWords,
  verifyPassword,
} from './passwordHash.js';
import type { VerifiedPasswords } from './verifiedPasswords.js';

/**
 * Passwords: setting, changing and removing an account's password, and signing in with one. The
 * identifier is the account's e-mail address or its name (any case); see docs/web.md.
 */

/** The longest identifier read (an e-mail address is at most 254 characters; names 200). */
export const IDENTIFIER_MAX = 320;
/** Accounts one name may name (names are not unique): each is tried, in id order. */
const MAX_CANDIDATES = 5;

/** An account signed in with its password. */
export interface PasswordSignIn {
  accountId: AccountId;
  method: 'password';
}

/** Password sign-in of the account (or identifier) is held for this long: no password was checked. */
export interface PasswordHeld {
  heldSeconds: number;
}

/**
 * The account whose e-mail address or name is `identifier` and whose password this is; null otherwise.
 * An e-mail address names one account (migration 0026) and is the only one tried, so an address costs
 * exactly one scrypt verification whether or not it exists, has a password or matches: the answer's time
 * does not tell which addresses exist. A name shared by several accounts is tried against each. With
 * `holds`, the attempt is first counted against the accounts the identifier names (or the identifier
 * itself when it names none) and refused unchecked while they are held (passwordHolds.ts). With
 * `verified`, credentials verified a moment ago against the hash still stored skip scrypt
 * (verifiedPasswords.ts: a client that sends its password with every request, OPDS's Basic).
 */
export async function signInWithPassword(
  store: Store,
  identifier: string,
  password: string,
  now: Date,
  holds?: PasswordHolds,
  verified?: VerifiedPasswords,
): Promise<PasswordSignIn | PasswordHeld | null> {
  const id = identifier.trim();
  const tooBig = id === '' || id.length > IDENTIFIER_MAX || passwordTooBig(password);
  const candidates = tooBig ? [] : await passwordCandidates(store.db, id, MAX_CANDIDATES);
  if (holds !== undefined) {
    const keys =
      candidates.length > 0
        ? candidates.map((c) => accountHoldKey(c.accountId))
        : [identifierHoldKey(id.slice(0, IDENTIFIER_MAX))];
    const heldSeconds = holds.reserve(keys);
    if (heldSeconds > 0) return { heldSeconds };
  }
  const hashes = hashesToTry(candidates);
  const recalled = verified?.recall(id, password, hashes) ?? null;
  if (recalled !== null) {
    holds?.succeeded(accountHoldKey(recalled));
    return { accountId: grantAccount(recalled), method: 'password' };
  }
  for (const c of hashes) {
    if (await verifyPassword(password, c.passwordHash)) {
      let stored = c.passwordHash;
      if (needsRehash(stored)) {
        stored = await hashPassword(password);
        await savePasswordHash(store.db, c.accountId, stored, now.toISOString());
      }
      verified?.remember(id, password, c.accountId, stored);
      holds?.succeeded(accountHoldKey(c.accountId));
      return { accountId: grantAccount(c.accountId), method: 'password' };
    }
  }
  if (hashes.length === 0) await verifyPassword(password.slice(0, 1024), await dummyHash());
  return null;
}

/**
 * The stored hashes a sign-in checks, in order: the account whose e-mail address the identifier is, alone
 * (none when it has no password: the dummy hash is checked instead, as for an unknown identifier);
 * otherwise each account of that name that has a password.
 */
export function hashesToTry<T extends { passwordHash: string | null; byEmail: boolean }>(
  candidates: readonly T[],
): (T & { passwordHash: string })[] {
  const byEmail = candidates.find((c) => c.byEmail);
  const tried = byEmail === undefined ? candidates : [byEmail];
  return tried.filter((c): c is T & { passwordHash: string } => c.passwordHash !== null);
}

const passwordTooBig = (password: string): boolean => Buffer.byteLength(password, 'utf8') > 4 * 1024;

/** Whether the account has a password, and since when. */
export async function passwordStatus(store: Store, accountId: AccountId): Promise<{ setAt: string | null }> {
  return { setAt: await passwordSetAt(store.db, accountId) };
}

/** 'wrong_password': the account has a password and `current` is not it (counted as a failed sign-in). */
export type PasswordChange = 'done' | 'wrong_password';

/**
 * Sets or changes the account's password. When it has one, `current` must be it (a session alone is not
 * enough to change it: a browser left open must not let someone lock its owner out). Other browsers
 * signed in with the old password are signed out; `keepSessionId` (the browser making the change) stays.
 */
export async function setAccountPassword(
  store: Store,
  accountId: AccountId,
  input: { current: string | null; next: string; keepSessionId: string | null },
  now: Date,
): Promise<PasswordChange> {
  refusePassword(input.next);
  if (!(await currentMatches(store, accountId, input.current))) return 'wrong_password';
  await replacePassword(store, accountId, await hashPassword(input.next), input.keepSessionId, now);
  return 'done';
}

/** Removes the account's password (the current one must be given); browsers signed in with it sign out. */
export async function removeAccountPassword(
  store: Store,
  accountId: AccountId,
  input: { current: string | null; keepSessionId: string | null },
  now: Date,
): Promise<PasswordChange> {
  if (!(await currentMatches(store, accountId, input.current))) return 'wrong_password';
  await replacePassword(store, accountId, null, input.keepSessionId, now);
  return 'done';
}

/**
 * The operator's way (`tidings account password`): sets (or with null clears) the password without the
 * current one (whoever runs the CLI owns the database); every browser that used the old one signs out.
 */
export async function operatorSetPassword(
  store: Store,
  accountId: AccountId,
  next: string | null,
  now: Date,
): Promise<void> {
  if (next !== null) refusePassword(next);
  await replacePassword(store, accountId, next === null ? null : await hashPassword(next), null, now);
}

/** A new password past the rule: invalid_input, its English words and its facts (for the web's). */
function refusePassword(password: string): void {
  const facts = passwordRefusal(password);
  if (facts !== null) throw new TidingsError('invalid_input', passwordWords(facts), { facts });
}

async function replacePassword(
  store: Store,
  accountId: AccountId,
  hash: string | null,
  keepSessionId: string | null,
  now: Date,
): Promise<void> {
  await store.db.transaction().execute(async (trx) => {
    if (hash === null) await deletePassword(trx, accountId);
    else await savePasswordHash(trx, accountId, hash, now.toISOString());
    await deletePasswordSessions(trx, accountId, keepSessionId);
  });
}

/** True when the account has no password, or `current` is it. */
async function currentMatches(store: Store, accountId: AccountId, current: string | null): Promise<boolean> {
  const stored = await passwordHashOf(store.db, accountId);
  if (stored === null) return true;
  if (current === null || current === '' || passwordTooBig(current)) return false;
  return verifyPassword(current, stored);
}
