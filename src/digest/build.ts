import { stopwatch } from '../lib/metrics.js';
import { LeaseLost, workerId } from '../lib/workers.js';
import { claimDueAccounts, scheduleAccount, unscheduledAccounts } from '../store/accountSchedule.js';
import { transaction } from '../store/precompiled.js';
import { type BuildMode, buildBatch } from './batch.js';
import { DIGEST_LANES, type DigestDeps } from './deps.js';
import { nextSlotAfter, scheduleOf } from './schedule.js';

/**
 * Building a digest: in one transaction the account's oldest queued items (at most its maximum) move into
 * a new digest and leave the queue; the claimed accounts of a batch share the transaction (batch.ts).
 * Exactly once per account and local day: accounts are claimed with a lease (SKIP LOCKED on PostgreSQL),
 * every queue writer locks the account row first, and digests are UNIQUE per account and day. Delivery is a separate step on the committed digest: a crash after the
 * build leaves a digest whose email is still to be sent, never one to build again.
 */

export type BuildOutcome =
  | {
      status: 'built';
      accountId: number;
      digestId: number;
      localDate: string;
      items: number;
      remaining: number;
    }
  /** The queue was empty and the account skips empty digests (or the build was forced). */
  | { status: 'empty'; accountId: number; localDate: string }
  /** That local day already has its digest: nothing moved. */
  | { status: 'exists'; accountId: number; localDate: string; digestId: number }
  /** Another worker took the account over (this one's lease ran out): nothing was written. */
  | { status: 'lease_lost'; accountId: number }
  /** Building failed unexpectedly (the database, a bug): logged; retried once the lease runs out. */
  | { status: 'error'; accountId: number; message: string }
  | { status: 'no_account'; accountId: number };

/** Claimed accounts built at once, in one transaction: the default size of a claim. */
const BATCH = 20;
/**
 * Builds every digest that is due now (or only account `accountId`'s): claims due accounts in batches,
 * builds each for its latest slot (one digest, however many days a stopped server missed) and moves its
 * schedule on to the next slot, also when nothing was built. On PostgreSQL several batches are in flight.
 */
export async function buildDueDigests(
  deps: DigestDeps,
  opts: { accountId?: number; owner?: string; batch?: number } = {},
): Promise<BuildOutcome[]> {
  const owner = opts.owner ?? workerId();
  await scheduleNewAccounts(deps);
  const outcomes: BuildOutcome[] = [];
  const seen = new Set<number>();
  // Accounts this pass handled that are still due (a lease lost to another worker, possible only with
  // leases shorter than a build, or an error): not handled twice, and not claimed again, so they neither
  // hide the accounts waiting behind them nor lose another worker its lease; a later pass takes them.
  const skip: number[] = [];
  const lane = async (): Promise<void> => {
    for (;;) {
      const t = deps.now();
      const claimed = await claimDueAccounts(deps.store.db, deps.store.engine, {
        owner,
        now: t.toISOString(),
        leaseUntil: new Date(t.getTime() + deps.leaseMs).toISOString(),
        limit: opts.batch ?? BATCH,
        excludeIds: skip,
        ...(opts.accountId === undefined ? {} : { accountId: opts.accountId }),
      });
      if (claimed.length === 0) return;
      for (const a of claimed) if (seen.has(a.id)) skip.push(a.id);
      const fresh = claimed.filter((a) => !seen.has(a.id)).map((a) => a.id);
      for (const id of fresh) seen.add(id);
      for (const outcome of await buildClaimed(deps, fresh, { kind: 'scheduled', owner })) {
        outcomes.push(outcome);
        // Its schedule did not move on, so it is still due: claiming it again would take its lease from the
        // worker now building it.
        if (outcome.status === 'lease_lost' || outcome.status === 'error') skip.push(outcome.accountId);
      }
    }
  };
  const lanes = deps.store.engine === 'postgres' && opts.accountId === undefined ? DIGEST_LANES : 1;
  await Promise.all(Array.from({ length: lanes }, lane));
  return outcomes;
}

/**
 * Builds claimed accounts as one batch; if the batch fails as a whole (the database, a bug, a lost lease),
 * each account again on its own, so that one account's failure is its own: logged, and retried once its
 * lease runs out.
 */
async function buildClaimed(
  deps: DigestDeps,
  accountIds: number[],
  mode: BuildMode,
): Promise<BuildOutcome[]> {
  if (accountIds.length === 0) return [];
  const elapsed = stopwatch();
  let outcomes: BuildOutcome[];
  try {
    outcomes = await buildInTransaction(deps, accountIds, mode);
  } catch (err) {
    const [accountId] = accountIds;
    if (accountId === undefined || accountIds.length > 1) {
      deps.log.warn(
        { err, accounts: accountIds.length },
        'a batch of digest builds failed; building each alone',
      );
      const alone: BuildOutcome[] = [];
      for (const id of accountIds) alone.push(...(await buildClaimed(deps, [id], mode)));
      return alone;
    }
    if (err instanceof LeaseLost) outcomes = [{ status: 'lease_lost', accountId }];
    else {
      deps.log.error({ err, accountId }, 'building a digest failed');
      outcomes = [{ status: 'error', accountId, message: err instanceof Error ? err.message : String(err) }];
    }
  }
  counted(deps, outcomes, elapsed());
  return outcomes;
}

function buildInTransaction(
  deps: DigestDeps,
  accountIds: number[],
  mode: BuildMode,
): Promise<BuildOutcome[]> {
  const now = deps.now();
  return transaction(deps.store.db, (trx) => buildBatch(trx, deps, accountIds, mode, now));
}

/**
 * `digest run --force`: builds the account's digest now, whatever its schedule, for today in its zone;
 * an empty queue is still skipped. The schedule is left as it is (a slot later the same day finds the day
 * taken and waits for the next one).
 */
export async function buildDigestNow(deps: DigestDeps, accountId: number): Promise<BuildOutcome> {
  const elapsed = stopwatch();
  let outcomes: BuildOutcome[];
  try {
    outcomes = await buildInTransaction(deps, [accountId], { kind: 'now' });
  } catch (err) {
    counted(deps, [{ status: 'error', accountId, message: '' }], elapsed());
    throw err;
  }
  counted(deps, outcomes, elapsed());
  return outcomes[0] ?? { status: 'no_account', accountId };
}

/** Counts the builds of a batch once it is over (committed or not), each with its share of the batch's time. */
function counted(deps: DigestDeps, outcomes: readonly BuildOutcome[], seconds: number): void {
  for (const o of outcomes) {
    deps.metrics?.digestBuilt(o.status, seconds / outcomes.length);
    if (o.status === 'lease_lost') deps.metrics?.leaseLost('digest_build');
  }
}

/**
 * Gives accounts that have no due time yet (created before digests existed) their next slot after now:
 * an upgrade starts their schedule instead of firing at once.
 */
export async function scheduleNewAccounts(deps: DigestDeps): Promise<number> {
  let scheduled = 0;
  for (;;) {
    const accounts = await unscheduledAccounts(deps.store.db, 100);
    if (accounts.length === 0) return scheduled;
    const now = deps.now();
    for (const account of accounts) {
      const next = nextSlotAfter(now, scheduleOf(account));
      await scheduleAccount(deps.store.db, account.id, next.at.toISOString());
      scheduled++;
    }
  }
}
