import type { Kysely } from 'kysely';
import { DEFAULT_SCHEDULE, nextSlotAfter, scheduleOf } from '../digest/schedule.js';
import { ensureDigestToken } from '../digest/token.js';
import { TidingsError } from '../errors.js';
import { ENGLISH } from '../i18n/locale.js';
import { clearedEmailSentence } from '../i18n/sharedSentences.js';
import { emailAddressProblem } from '../lib/email.js';
import { withoutBidiControls } from '../lib/bidi.js';
import type { Engine, Store } from '../store/db.js';
import {
  type Account,
  accountById,
  allAccounts,
  createAccount,
  hasAccounts,
  hasAccountsForCreation,
} from '../store/accounts.js';
import { type ClearedEmail, emailsClearedByUpgrade } from '../store/accountEmails.js';
import { type ApiKeyInfo, createApiKey } from '../store/apiKeys.js';
import { claimOnce } from '../store/meta.js';
import type { Database } from '../store/schema.js';
import { type AccountId, grantAccount } from './authorize.js';
import { generateKey } from './keys.js';
import { settingProblem } from './settingRefusals.js';
import { zoneRefusalOf } from './settings.js';

/** Accounts: creating one (with its first API key and its digest token), listing them, showing one. */

export interface AccountInput {
  name: string;
  email?: string | undefined;
  timezone?: string | undefined;
  /** Make it an administrator (the first account ever created is one anyway). */
  admin?: boolean | undefined;
}

export interface CheckedInput {
  name: string;
  email: string | null;
  timezone: string;
  admin: boolean;
}

const ACCOUNT_NAME_MAX = 200;

/** An account's name as a person types it: trimmed, without bidi controls, 1 to 200 characters. */
export function checkAccountName(raw: string): string {
  const name = withoutBidiControls(raw).trim();
  if (name === '' || name.length > ACCOUNT_NAME_MAX) {
    throw new TidingsError('invalid_input', `name must be 1 to ${ACCOUNT_NAME_MAX} characters`, {
      facts: { reason: 'name_length', max: ACCOUNT_NAME_MAX },
    });
  }
  return name;
}

/** A new account, authorised for whoever created it. */
export type NewAccount = Omit<Account, 'id'> & { id: AccountId };

/** Validates what a person typed for a new account; throws invalid_input. */
export function checkAccountInput(input: AccountInput): CheckedInput {
  const name = checkAccountName(input.name);
  const email = input.email?.trim() ?? '';
  const problem = email === '' ? null : emailAddressProblem(email);
  if (problem !== null) {
    throw new TidingsError('invalid_input', `not an email address: ${email} (${problem})`, {
      facts: { reason: 'email_invalid', email },
    });
  }
  const timezone = zoneRefusalOf(input.timezone ?? 'UTC');
  if ('refusal' in timezone) {
    throw new TidingsError('invalid_input', settingProblem(timezone.refusal), {
      facts: { reason: 'setting_refused', field: 'timezone', refusal: timezone.refusal },
    });
  }
  return { name, email: email === '' ? null : email, timezone: timezone.zone, admin: input.admin === true };
}

/** A new account with its first API key (shown once, never stored). */
export interface CreatedAccount {
  account: NewAccount;
  apiKey: string;
  keyInfo: ApiKeyInfo;
}

/**
 * Creates an account with its first API key. The key is returned once and never stored. The first account
 * of a database (none exists yet) is an administrator, however it is made.
 */
export async function createAccountWithKey(store: Store, input: AccountInput): Promise<CreatedAccount> {
  const checked = checkAccountInput(input);
  return store.db.transaction().execute((trx) => insertAccountWithKey(trx, store.engine, checked));
}

/** The same, inside the caller's transaction (accepting an invitation). */
export async function insertAccountWithKey(
  db: Kysely<Database>,
  engine: Engine,
  checked: CheckedInput,
): Promise<CreatedAccount> {
  // The first digest is due at the default send time, in the reader's zone, after now.
  const digestDueAt = nextSlotAfter(new Date(), scheduleOf({ ...DEFAULT_SCHEDULE, ...checked })).at;
  const isAdmin = checked.admin || !(await hasAccountsForCreation(db, engine));
  const created = await createAccount(db, {
    name: checked.name,
    email: checked.email,
    timezone: checked.timezone,
    digestDueAt: digestDueAt.toISOString(),
    isAdmin,
  });
  const account = { ...created, id: grantAccount(created.id) };
  await ensureDigestToken(db, account.id);
  const key = generateKey();
  const keyInfo = await createApiKey(db, account.id, {
    name: 'default',
    prefix: key.prefix,
    keyHash: key.hash,
  });
  return { account, apiKey: key.key, keyInfo };
}

/**
 * On a database that has never had an account, creates the first one. Exactly one process wins, even
 * when several instances start at once; the others (and every later start) get null.
 */
export async function ensureFirstAccount(
  store: Store,
): Promise<{ account: NewAccount; apiKey: string } | null> {
  return store.db.transaction().execute(async (trx) => {
    if (await hasAccounts(trx)) return null;
    if (!(await claimOnce(trx, 'first_account_created', new Date().toISOString()))) return null;
    const { account, apiKey } = await insertAccountWithKey(
      trx,
      store.engine,
      checkAccountInput({ name: 'default' }),
    );
    return { account, apiKey };
  });
}

/** Every account, oldest first (for the operator). */
export async function listAccounts(store: Store): Promise<Account[]> {
  return allAccounts(store.db);
}

/** The account with its digest settings and schedule; null when it no longer exists. */
export async function showAccount(store: Store, accountId: AccountId): Promise<Account | null> {
  return accountById(store.db, accountId);
}

export type { ClearedEmail } from '../store/accountEmails.js';

/**
 * The e-mail addresses migration 0026 cleared from accounts that shared them with an older account (the
 * older one kept it), for the operator: `tidings migrate` prints them and `serve` logs them.
 */
export async function sharedEmailsCleared(store: Store): Promise<ClearedEmail[]> {
  return emailsClearedByUpgrade(store.db);
}

/** One line for the log about an address 0026 cleared (`tidings migrate` says it in the operator's language). */
export const describeClearedEmail = (c: ClearedEmail): string => clearedEmailSentence(ENGLISH, c);
