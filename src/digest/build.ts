import type { Kysely } from 'kysely';
import { stopwatch } from '../lib/metrics.js';
import { LeaseLost, workerId } from '../lib/workers.js';
import { oldestWaiting, takeItems } from '../queue/take.js';
import {
  type Account,
  type DigestPass,
  claimDueAccounts,
  lockAccount,
  recordDigestPass,
  scheduleAccount,
  unscheduledAccounts,
} from '../store/accounts.js';
import { createDigestItems } from '../store/digestItems.js';
import { createDigest, digestByDate, nextDigestId } from '../store/digests.js';
import { transaction } from '../store/precompiled.js';
import type { Database, DeliveryState } from '../store/schema.js';
import type { DigestDeps } from './deps.js';
import { digestMessageId } from './mail.js';
import { latestSlotAtOrBefore, localDateOf, nextSlotAfter, scheduleOf } from './schedule.js';
import { nextDigestSlot } from './upcoming.js';
import { ensureDigestToken } from './token.js';
import { emailPaused } from './unsubscribe.js';
import { tallyOf } from './view.js';

/**
 * Building a digest: in one transaction the account's oldest queued items (at most its maximum) move into
 * a new digest and leave the queue. Exactly once per account and local day: accounts are claimed with a
 * lease (SKIP LOCKED on PostgreSQL), every queue writer locks the account row first, and digests are
 * UNIQUE per account and day. Delivery is a separate step on the committed digest: a crash after the
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

/**
 * Builds every digest that is due now (or only account `accountId`'s): claims due accounts in batches,
 * builds each for its latest slot (one digest, however many days a stopped server missed) and moves its
 * schedule on to the next slot, also when nothing was built.
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
  for (;;) {
    const t = deps.now();
    const claimed = await claimDueAccounts(deps.store.db, deps.store.engine, {
      owner,
      now: t.toISOString(),
      leaseUntil: new Date(t.getTime() + deps.leaseMs).toISOString(),
      limit: opts.batch ?? 20,
      excludeIds: skip,
      ...(opts.accountId === undefined ? {} : { accountId: opts.accountId }),
    });
    if (claimed.length === 0) return outcomes;
    for (const a of claimed) if (seen.has(a.id)) skip.push(a.id);
    const fresh = claimed.filter((a) => !seen.has(a.id));
    for (const account of fresh) {
      seen.add(account.id);
      const outcome = await counted(deps, () => buildScheduled(deps, account, owner)).catch(
        (err: unknown): BuildOutcome => {
          deps.log.error({ err, accountId: account.id }, 'building a digest failed');
          return {
            status: 'error',
            accountId: account.id,
            message: err instanceof Error ? err.message : String(err),
          };
        },
      );
      outcomes.push(outcome);
      // Its schedule did not move on, so it is still due: claiming it again would take its lease from the
      // worker now building it.
      if (outcome.status === 'lease_lost' || outcome.status === 'error') skip.push(account.id);
    }
  }
}

async function buildScheduled(deps: DigestDeps, claimed: Account, owner: string): Promise<BuildOutcome> {
  const now = deps.now();
  const accountId = claimed.id;
  try {
    return await transaction(deps.store.db, async (trx) => {
      // First the lock on the account row (every queue writer and settings change takes it first too),
      // then the settings as they are now, then the lease check.
      const account = await lockAccount(trx, deps.store.engine, accountId);
      if (account === null) return { status: 'no_account', accountId } as const;
      if (account.digest_lease_owner !== owner) throw new LeaseLost();
      const schedule = scheduleOf(account);
      const slot = latestSlotAtOrBefore(now, schedule);
      const localDate = slot?.localDate ?? localDateOf(now, schedule.zone);
      const outcome = await buildLocked(trx, deps, account, localDate, now, account.digest_skip_empty);
      const next = await nextDigestSlot(trx, account, now);
      const scheduled = { owner, dueAt: next.at.toISOString() };
      if (!(await recordDigestPass(trx, accountId, { scheduled, ...builtFor(outcome) })))
        throw new LeaseLost();
      return outcome;
    });
  } catch (err) {
    if (err instanceof LeaseLost) return { status: 'lease_lost', accountId };
    throw err;
  }
}

/**
 * `digest run --force`: builds the account's digest now, whatever its schedule, for today in its zone;
 * an empty queue is still skipped. The schedule is left as it is (a slot later the same day finds the day
 * taken and waits for the next one).
 */
export async function buildDigestNow(deps: DigestDeps, accountId: number): Promise<BuildOutcome> {
  const now = deps.now();
  return counted(deps, () =>
    transaction(deps.store.db, async (trx) => {
      const account = await lockAccount(trx, deps.store.engine, accountId);
      if (account === null) return { status: 'no_account', accountId };
      const localDate = localDateOf(now, scheduleOf(account).zone);
      const outcome = await buildLocked(trx, deps, account, localDate, now, true);
      await recordDigestPass(trx, accountId, builtFor(outcome));
      return outcome;
    }),
  );
}

/** Runs one build and counts it once it is over (committed or not); one that throws counts as an error. */
async function counted(deps: DigestDeps, build: () => Promise<BuildOutcome>): Promise<BuildOutcome> {
  const elapsed = stopwatch();
  let outcome: BuildOutcome | undefined;
  try {
    outcome = await build();
    return outcome;
  } finally {
    deps.metrics?.digestBuilt(outcome?.status ?? 'error', elapsed());
    if (outcome?.status === 'lease_lost') deps.metrics?.leaseLost('digest_build');
  }
}

/** What a built digest changes on its account's row: its last digest, and its queue's version. */
const builtFor = (outcome: BuildOutcome): Pick<DigestPass, 'builtFor'> =>
  outcome.status === 'built' ? { builtFor: outcome.localDate } : {};

/** The build itself, in a transaction that holds the account row (which the caller then writes once). */
async function buildLocked(
  trx: Kysely<Database>,
  deps: DigestDeps,
  account: Account,
  localDate: string,
  now: Date,
  skipEmpty: boolean,
): Promise<BuildOutcome> {
  const accountId = account.id;
  const existing = await digestByDate(trx, accountId, localDate);
  if (existing !== null) return { status: 'exists', accountId, localDate, digestId: existing.id };
  const { items, remaining } = await oldestWaiting(trx, accountId, account.digest_max_items);
  if (items.length === 0 && skipEmpty) return { status: 'empty', accountId, localDate };
  const createdAt = now.toISOString();
  const rows = items.map((item, position) => ({
    position,
    url: item.url,
    title: item.title,
    source: item.source,
    feed_id: item.feed_id,
    feed_title: item.source === 'feed' ? item.feed_title : null,
    summary: item.summary,
    published_at: item.published_at,
    queued_at: item.created_at,
    page_id: item.page_id,
    image_url: item.image_url,
  }));
  const tally = tallyOf(rows);
  const delivery = deliveryAtBuild(deps, account);
  const id = await nextDigestId(trx, deps.store.engine);
  const digest = await createDigest(trx, accountId, {
    id,
    localDate,
    createdAt,
    itemCount: items.length,
    savedCount: tally.saved,
    feedCount: tally.feeds,
    remaining,
    delivery,
    nextAttemptAt: delivery === 'pending' ? createdAt : null,
    messageId: digestMessageId({ id, created_at: createdAt }, deps.mailFrom ?? messageDomain(deps)),
  });
  if (digest === null) {
    // Cannot happen while every builder holds the account row; the constraint is the last guard.
    const other = await digestByDate(trx, accountId, localDate);
    return { status: 'exists', accountId, localDate, digestId: other?.id ?? 0 };
  }
  // The "Read on the web" link of its email carries the account's digest token (older accounts get theirs now).
  await ensureDigestToken(trx, accountId);
  await createDigestItems(trx, digest.id, rows);
  await takeItems(trx, accountId, items);
  return { status: 'built', accountId, digestId: digest.id, localDate, items: items.length, remaining };
}

/** Email when the account wants it and has an address, and this instance can send; else why not. */
function deliveryAtBuild(deps: DigestDeps, account: Account): DeliveryState {
  if (!account.email_enabled || account.email === null) return 'not_emailed';
  if (emailPaused(account, deps.now())) return 'not_emailed';
  return deps.mailer === null ? 'no_smtp' : 'pending';
}

/** Without TIDINGS_MAIL_FROM, Message-IDs take the base URL's host (they are never sent anyway). */
function messageDomain(deps: DigestDeps): string {
  try {
    return `tidings@${new URL(deps.baseUrl).hostname}`;
  } catch {
    return 'tidings@tidings.invalid';
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
