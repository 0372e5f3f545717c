import type { Kysely } from 'kysely';
import { LeaseLost } from '../lib/workers.js';
import { takeItemsOf, waitingOf } from '../queue/take.js';
import type { LockedAccount } from '../store/accounts.js';
import { type AccountDigestPass, lockAccounts, recordDigestPasses } from '../store/accountSchedule.js';
import { createItemsOfDigests, recentShownOfAccounts } from '../store/digestItems.js';
import { createDigests, digestByDate, digestDaysOfAccounts, nextDigestIds } from '../store/digests.js';
import type { Database, DeliveryState } from '../store/schema.js';
import type { BuildOutcome } from './build.js';
import type { DigestDeps } from './deps.js';
import { digestMessageId } from './mail.js';
import {
  type DigestSchedule,
  dayBeforeOf,
  latestSlotAtOrBefore,
  localDateOf,
  nextSlotToRun,
  scheduleOf,
} from './schedule.js';
import type { Choice } from './choose/choose.js';
import { resurfaceInto } from './resurface.js';
import { ensureDigestTokens } from './token.js';
import { emailPaused } from './unsubscribe.js';
import { tallyOf } from './view.js';
import { lazy } from '../lib/lazy.js';

/**
 * Building the digests of several accounts in one transaction, each step one statement for the whole
 * batch instead of one per account: the accounts' rows locked in id order (the order every writer that
 * locks several takes), their digest days read, their queues' oldest items read, the digests, their items
 * and the tokens written, the items taken out of the queues, and each account row written once. One
 * account is a batch of one (`digest run --force`, and each account of a batch that failed as a whole).
 */

/** On the schedule, by a worker holding the accounts' leases; or now, whatever the schedule (`--force`). */
export type BuildMode = { kind: 'scheduled'; owner: string } | { kind: 'now' };

/** An account of the batch that is to be built or passed over, and for which day. */
interface Planned {
  account: LockedAccount;
  schedule: DigestSchedule;
  localDate: string;
  /** Its local days that already have a digest, by day: their digest ids. */
  days: Map<string, number>;
  outcome?: BuildOutcome;
}

/**
 * Builds the digests of `accountIds` in the transaction `trx`; one outcome per account, in the order
 * given. In scheduled mode an account whose lease another worker holds is `lease_lost` and left alone;
 * LeaseLost is thrown (rolling the whole batch back) only if a lease is found lost at the end, which the
 * row locks rule out.
 */
export async function buildBatch(
  trx: Kysely<Database>,
  deps: DigestDeps,
  accountIds: readonly number[],
  mode: BuildMode,
  now: Date,
): Promise<BuildOutcome[]> {
  const outcomes = new Map<number, BuildOutcome>();
  const locked = new Map((await lockAccounts(trx, deps.store.engine, accountIds)).map((a) => [a.id, a]));
  const planned: Planned[] = [];
  for (const accountId of accountIds) {
    const account = locked.get(accountId);
    if (account === undefined) outcomes.set(accountId, { status: 'no_account', accountId });
    else if (mode.kind === 'scheduled' && account.digest_lease_owner !== mode.owner)
      outcomes.set(accountId, { status: 'lease_lost', accountId });
    else planned.push(plan(account, mode, now));
  }
  await readDays(trx, planned, now);
  const pending = planned.filter((p) => p.outcome === undefined);
  const chosen = await chooseDigests(
    trx,
    pending.map((p) => p.account),
    now,
  );
  const building = pending.filter((p) => {
    const { placed } = chosen.get(p.account.id) ?? EMPTY_CHOICE;
    const skipEmpty = mode.kind === 'now' || p.account.digest_skip_empty;
    if (placed.length === 0 && skipEmpty)
      p.outcome = { status: 'empty', accountId: p.account.id, localDate: p.localDate };
    return p.outcome === undefined;
  });
  await writeDigests(trx, deps, building, chosen, now);
  const passes: AccountDigestPass[] = planned.map((p) => {
    const outcome = p.outcome ?? { status: 'error', accountId: p.account.id, message: 'not built' };
    outcomes.set(p.account.id, outcome);
    const builtFor = outcome.status === 'built' ? { builtFor: outcome.localDate } : {};
    if (mode.kind === 'now') return { accountId: p.account.id, ...builtFor };
    // The first slot after now whose day has no digest yet (this build's day included): nextDigestSlot.
    const from = dayBeforeOf(now, p.schedule);
    const days = new Set([...p.days.keys()].filter((d) => d >= from));
    if (outcome.status === 'built') days.add(outcome.localDate);
    const dueAt = nextSlotToRun(now, p.schedule, days).at.toISOString();
    return { accountId: p.account.id, scheduled: { owner: mode.owner, dueAt }, ...builtFor };
  });
  // Each account row written once, in one statement for the batch on PostgreSQL.
  const lost = await recordDigestPasses(trx, deps.store.engine, passes);
  if (mode.kind === 'scheduled' && lost.length > 0) throw new LeaseLost();
  return accountIds.map(
    (accountId) => outcomes.get(accountId) ?? { status: 'error', accountId, message: 'not built' },
  );
}

/** The choice of stories (with its stemmers and stop words), loaded by the first digest to build. */
const chooser = lazy(() => import('./choose/choose.js'));

const EMPTY_CHOICE: Choice = { placed: [], carried: 0, entries: 0 };

/** How many of an account's latest digests a story must not have been delivered in to be shown as new. */
const RECENT_DIGESTS = 3;

/** What each account's digest takes and how it lays it out (choose/choose.ts), from two reads for the batch. */
async function chooseDigests(
  trx: Kysely<Database>,
  accounts: readonly LockedAccount[],
  now: Date,
): Promise<Map<number, Choice>> {
  const ids = accounts.map((a) => a.id);
  const waiting = await waitingOf(trx, ids);
  const recent = await recentShownOfAccounts(trx, ids, RECENT_DIGESTS);
  const { chooseDigest } = await chooser();
  return new Map(
    accounts.map((account) => {
      const before = recent.get(account.id) ?? { previousAt: null, shown: [] };
      const choice = chooseDigest({
        waiting: waiting.get(account.id) ?? [],
        maxItems: account.digest_max_items,
        delivered: before.shown.map((d) => ({
          digestId: d.digest_id,
          url: d.url,
          title: d.title,
          canonicalUrl: d.canonical_url,
          at: Date.parse(d.published_at ?? d.queued_at),
        })),
        previousAt: before.previousAt,
        now,
      });
      return [account.id, choice];
    }),
  );
}

/** The day an account's digest is for: its latest slot's (its own day today with `--force`). */
function plan(account: LockedAccount, mode: BuildMode, now: Date): Planned {
  const schedule = scheduleOf(account);
  const slot = mode.kind === 'scheduled' ? latestSlotAtOrBefore(now, schedule) : null;
  const localDate = slot?.localDate ?? localDateOf(now, schedule.zone);
  return { account, schedule, localDate, days: new Map() };
}

/** Each account's recent digest days (those the next slot depends on and its own); `exists` if its day has one. */
async function readDays(trx: Kysely<Database>, planned: Planned[], now: Date): Promise<void> {
  if (planned.length === 0) return;
  const from = planned
    .flatMap((p) => [p.localDate, dayBeforeOf(now, p.schedule)])
    .reduce((a, b) => (b < a ? b : a));
  const days = await digestDaysOfAccounts(
    trx,
    planned.map((p) => p.account.id),
    from,
  );
  for (const p of planned) {
    p.days = days.get(p.account.id) ?? new Map<string, number>();
    const digestId = p.days.get(p.localDate);
    if (digestId !== undefined)
      p.outcome = { status: 'exists', accountId: p.account.id, localDate: p.localDate, digestId };
  }
}

/** The digests of the accounts to build, with their items, taken out of the queues: `built` on each. */
async function writeDigests(
  trx: Kysely<Database>,
  deps: DigestDeps,
  building: Planned[],
  chosen: Map<number, Choice>,
  now: Date,
): Promise<void> {
  if (building.length === 0) return;
  const createdAt = now.toISOString();
  const ids = await nextDigestIds(trx, deps.store.engine, building.length);
  const rowsOf = new Map<number, ReturnType<typeof digestRows>>();
  const written = await createDigests(
    trx,
    building.map((p, i) => {
      const id = ids[i] ?? 0;
      const choice = chosen.get(p.account.id) ?? EMPTY_CHOICE;
      const rows = digestRows(choice);
      rowsOf.set(p.account.id, rows);
      const tally = tallyOf(rows);
      const delivery = deliveryAtBuild(deps, p.account);
      return {
        id,
        accountId: p.account.id,
        localDate: p.localDate,
        createdAt,
        itemCount: rows.length,
        savedCount: tally.saved,
        feedCount: tally.feeds,
        remaining: choice.carried,
        shownCount: choice.entries,
        delivery,
        nextAttemptAt: delivery === 'pending' ? createdAt : null,
        messageId: digestMessageId({ id, created_at: createdAt }, deps.mailFrom ?? messageDomain(deps)),
        ereaderState: ereaderAtBuild(deps, p.account),
      };
    }),
  );
  const digestOf = new Map(written.map((d) => [d.account_id, d.id]));
  const built: Planned[] = [];
  for (const p of building) {
    const digestId = digestOf.get(p.account.id);
    if (digestId !== undefined) {
      const choice = chosen.get(p.account.id) ?? EMPTY_CHOICE;
      p.outcome = {
        status: 'built',
        accountId: p.account.id,
        digestId,
        localDate: p.localDate,
        items: choice.placed.length,
        remaining: choice.carried,
      };
      built.push(p);
      continue;
    }
    // Cannot happen while every builder holds the account row; the constraint is the last guard.
    const other = await digestByDate(trx, p.account.id, p.localDate);
    p.outcome = {
      status: 'exists',
      accountId: p.account.id,
      localDate: p.localDate,
      digestId: other?.id ?? 0,
    };
  }
  const accountIds = built.map((p) => p.account.id);
  // The "Read on the web" link of its email carries the account's digest token (older accounts get theirs now).
  await ensureDigestTokens(trx, accountIds);
  await createItemsOfDigests(
    trx,
    built.flatMap((p) =>
      (rowsOf.get(p.account.id) ?? []).map((row) => ({ ...row, digest_id: digestOf.get(p.account.id) ?? 0 })),
    ),
    deps.store.engine,
  );
  await takeItemsOf(
    trx,
    accountIds,
    built.flatMap((p) => (chosen.get(p.account.id)?.placed ?? []).map((placed) => placed.item)),
  );
  // "From your reading list": a budget of its own, on top of the choice above (digest/resurface.ts).
  await resurfaceInto(
    trx,
    built.map((p) => ({
      accountId: p.account.id,
      digestId: digestOf.get(p.account.id) ?? 0,
      localDate: p.localDate,
      count: p.account.resurface_count,
      order: p.account.resurface_order,
    })),
    createdAt,
  );
}

/** A digest's items as written: in the order the choice laid them out, each with what its rendering shows. */
function digestRows(choice: Choice) {
  return choice.placed.map(({ item, section, shown, storyOf, seenIn }, position) => ({
    position,
    url: item.url,
    title: item.title,
    source: item.source,
    feed_id: item.feed_id,
    feed_title: item.source === 'api' ? null : item.feed_title,
    summary: item.summary,
    published_at: item.published_at,
    queued_at: item.created_at,
    page_id: item.page_id,
    image_url: item.image_url,
    section,
    shown: shown ? 1 : 0,
    story_of: storyOf,
    seen_in: seenIn,
  }));
}

/** Email when the account wants it and has an address, and this instance can send; else why not. */
function deliveryAtBuild(deps: DigestDeps, account: LockedAccount): DeliveryState {
  if (!account.email_enabled || account.email === null) return 'not_emailed';
  if (emailPaused(account, deps.now())) return 'not_emailed';
  return deps.mailer === null ? 'no_smtp' : 'pending';
}

/**
 * The EPUB's copy to the e-reader address: apart from the email's switch and pause (those are about the
 * inbox; the address alone says the reader wants the copy), and `no_smtp` as the email when there is no SMTP.
 */
function ereaderAtBuild(deps: DigestDeps, account: LockedAccount): DeliveryState | null {
  if (account.ereader_email === null) return null;
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
