import type { Kysely } from 'kysely';
import type { Account } from '../store/accounts.js';
import { digestDatesFrom } from '../store/digests.js';
import type { Database } from '../store/schema.js';
import { type Slot, dayBeforeOf, nextSlotToRun, scheduleOf } from './schedule.js';

/**
 * The one rule for "when does the next digest come": the first slot after `after` whose local day has no
 * digest yet. The worker moves an account's due time on with it after each pass, and the pages say what
 * it says (`upcomingDigest`), so what they show is the slot that will run.
 */
export async function nextDigestSlot(db: Kysely<Database>, account: Account, after: Date): Promise<Slot> {
  const schedule = scheduleOf(account);
  const taken = await digestDatesFrom(db, account.id, dayBeforeOf(after, schedule));
  return nextSlotToRun(after, schedule, taken);
}

/**
 * The slot the account's next digest will be built at: its due time's own slot, or, when that day already
 * has its digest (sent now earlier that day), the first later one whose day has none. Null while the
 * account has no due time yet.
 */
export async function upcomingDigest(db: Kysely<Database>, account: Account): Promise<Slot | null> {
  if (account.digest_due_at === null) return null;
  // Just before the due time: the due slot itself is the first candidate.
  return nextDigestSlot(db, account, new Date(Date.parse(account.digest_due_at) - 1));
}
