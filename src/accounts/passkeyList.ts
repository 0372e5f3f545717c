import { TidingsError } from '../errors.js';
import { withoutBidiControls } from '../lib/bidi.js';
import type { Store } from '../store/db.js';
import { type PasskeyInfo, deletePasskey, passkeysOf, renamePasskey } from '../store/passkeys.js';
import type { AccountId } from './authorize.js';
import { characters } from './passwordHash.js';

/** An account's passkeys as its owner manages them: list, rename, delete. */

export const PASSKEY_NAME_MAX = 100;

/** A passkey's name, trimmed; invalid_input when empty or too long. */
export function checkPasskeyName(raw: string | undefined): string {
  const name = withoutBidiControls(raw ?? '').trim();
  if (name === '' || characters(name) > PASSKEY_NAME_MAX) {
    throw new TidingsError('invalid_input', `a passkey's name must be 1 to ${PASSKEY_NAME_MAX} characters`, {
      facts: { reason: 'name_length', max: PASSKEY_NAME_MAX },
    });
  }
  return name;
}

export function listPasskeys(store: Store, accountId: AccountId): Promise<PasskeyInfo[]> {
  return passkeysOf(store.db, accountId);
}

/** false: the account has no such passkey. */
export async function renameAccountPasskey(
  store: Store,
  accountId: AccountId,
  passkeyId: number,
  name: string,
): Promise<boolean> {
  return renamePasskey(store.db, accountId, passkeyId, checkPasskeyName(name));
}

/** Deletes one of the account's passkeys; browsers signed in with it are signed out. false: no such passkey. */
export function deleteAccountPasskey(
  store: Store,
  accountId: AccountId,
  passkeyId: number,
): Promise<boolean> {
  return deletePasskey(store.db, accountId, passkeyId);
}
