import type { Kysely } from 'kysely';
import type { Store } from '../store/db.js';
import {
  type Account,
  accountById,
  lockQueue,
  createAccount,
  updateAccountSettings,
} from '../store/accounts.js';
import { type ApiKeyInfo, createApiKey } from '../store/apiKeys.js';
import { claimOnce } from '../store/meta.js';
import { transaction } from '../store/precompiled.js';
import type { Database } from '../store/schema.js';
import { nextSlotAfter } from '../digest/schedule.js';
import { generateKey } from './keys.js';
import { DEFAULT_SCHEDULE, type SettingsChange, canonicalZone, scheduleOf } from './settings.js';

export interface AccountInput {
  name: string;
  email?: string | undefined;
  timezone?: string | undefined;
}

export class InputError extends Error {
  override name = 'InputError';
}

function checkAccountInput(input: AccountInput): { name: string; email: string | null; timezone: string } {
  const name = input.name.trim();
  if (name === '' || name.length > 200) throw new InputError('name must be 1 to 200 characters');
  const email = input.email?.trim() ?? '';
  if (email !== '' && (email.length > 320 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))) {
    throw new InputError(`not an email address: ${email}`);
  }
  const timezone = canonicalZone(input.timezone ?? 'UTC');
  if (timezone === null)
    throw new InputError(
      `unknown time zone: ${input.timezone ?? ''} (use an IANA name such as Europe/Berlin)`,
    );
  return { name, email: email === '' ? null : email, timezone };
}

/** Creates an account with its first API key. The key is returned once and never stored. */
export async function createAccountWithKey(
  store: Store,
  input: AccountInput,
): Promise<{ account: Account; apiKey: string; keyInfo: ApiKeyInfo }> {
  const checked = checkAccountInput(input);
  return store.db.transaction().execute((trx) => insertAccountWithKey(trx, checked));
}

async function insertAccountWithKey(
  db: Kysely<Database>,
  checked: { name: string; email: string | null; timezone: string },
): Promise<{ account: Account; apiKey: string; keyInfo: ApiKeyInfo }> {
  // The first digest is due at the default send time, in the reader's zone, after now.
  const digestDueAt = nextSlotAfter(new Date(), scheduleOf({ ...DEFAULT_SCHEDULE, ...checked })).at;
  const account = await createAccount(db, { ...checked, digestDueAt: digestDueAt.toISOString() });
  const key = generateKey();
  const keyInfo = await createApiKey(db, account.id, {
    name: 'default',
    prefix: key.prefix,
    keyHash: key.hash,
  });
  return { account, apiKey: key.key, keyInfo };
}

/** Issues another key for an existing account; null when the account does not exist. */
export async function issueKey(
  store: Store,
  accountId: number,
  name: string,
): Promise<{ apiKey: string; keyInfo: ApiKeyInfo } | null> {
  if ((await accountById(store.db, accountId)) === null) return null;
  const key = generateKey();
  const keyInfo = await createApiKey(store.db, accountId, {
    name: name.trim() || 'key',
    prefix: key.prefix,
    keyHash: key.hash,
  });
  return { apiKey: key.key, keyInfo };
}

/**
 * On a database that has never had an account, creates the first one. Exactly one process wins, even
 * when several instances start at once; the others (and every later start) get null.
 */
export async function ensureFirstAccount(store: Store): Promise<{ account: Account; apiKey: string } | null> {
  return store.db.transaction().execute(async (trx) => {
    const hasAccounts = await trx.selectFrom('accounts').select('id').limit(1).executeTakeFirst();
    if (hasAccounts !== undefined) return null;
    if (!(await claimOnce(trx, 'first_account_created', new Date().toISOString()))) return null;
    const { account, apiKey } = await insertAccountWithKey(trx, checkAccountInput({ name: 'default' }));
    return { account, apiKey };
  });
}

/**
 * Changes an account's digest settings. A change of zone, send time or days recomputes when the next digest
 * is due (the next slot after `now`); a day that already has its digest does not get a second one. Null
 * when there is no such account.
 */
export async function changeAccountSettings(
  store: Store,
  accountId: number,
  change: SettingsChange,
  now: Date = new Date(),
): Promise<Account | null> {
  return transaction(store.db, async (trx) => {
    // The row lock first, as digest builds take it: a build in progress sees the settings before or after.
    if ((await lockQueue(trx, accountId)) === null) return null;
    const account = await accountById(trx, accountId);
    if (account === null) return null;
    const rescheduled =
      change.timezone !== undefined || change.time !== undefined || change.days !== undefined;
    const schedule = scheduleOf({
      timezone: change.timezone ?? account.timezone,
      digest_time: change.time ?? account.digest_time,
      digest_days: change.days ?? account.digest_days,
    });
    return updateAccountSettings(trx, accountId, {
      ...(change.timezone === undefined ? {} : { timezone: change.timezone }),
      ...(change.time === undefined ? {} : { digestTime: change.time }),
      ...(change.days === undefined ? {} : { digestDays: change.days }),
      ...(change.maxItems === undefined ? {} : { digestMaxItems: change.maxItems }),
      ...(change.skipEmpty === undefined ? {} : { digestSkipEmpty: change.skipEmpty }),
      ...(change.email === undefined ? {} : { email: change.email }),
      ...(change.emailEnabled === undefined ? {} : { emailEnabled: change.emailEnabled }),
      ...(rescheduled ? { digestDueAt: nextSlotAfter(now, schedule).at.toISOString() } : {}),
    });
  });
}
