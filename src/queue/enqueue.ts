import type { Kysely } from 'kysely';
import { TidingsError } from '../errors.js';
import { lockQueues } from '../store/accounts.js';
import type { Engine, Store } from '../store/db.js';
import {
  type NewQueueRow,
  type QueueAdvance,
  type WaitingByKey,
  adoptQueueItems,
  createQueueItems,
  createQueueItemsAtOnce,
  createQueueItemsReadingWaiting,
  queueItemsByKeys,
  queueLengthBounds,
} from '../store/queueItemBatches.js';
import { type NewQueueItem, queueLength, updateQueueItemTitle } from '../store/queueItems.js';
import type { Database, QueueSource } from '../store/schema.js';
import type { LengthBounds } from './bounds.js';
import { type Offer, type Planned, type QueuePlan, type Waiting, planQueue, refuses } from './plan.js';
import { checkTitle, checkUrl } from './url.js';

/**
 * The one way into a queue. An item has three shapes on its way to a queue row:
 * - `QueueInput`: what a caller offers (a save from the API or the web app, a feed item for a subscriber);
 * - `QueueItem`: the same, validated and normalised by `checkItem` (a queue row's columns, and whether a
 *   title was given);
 * - the `queue_items` row that `enqueue` writes (store/queueItems.ts), unless the URL is already waiting.
 */
export interface QueueInput {
  url: string | undefined;
  title: string | undefined;
  source: QueueSource;
  /** The feed an item comes from (source 'feed'). */
  feedId?: number | null;
  /** A feed item's plain-text summary and publication time, kept for its digest (source 'feed'). */
  summary?: string | null;
  publishedAt?: string | null;
  /** A feed item's own image (absolute http(s)), shown as a saved page's lead image is. */
  imageUrl?: string | null;
}

export interface QueueItem extends NewQueueItem {
  /** Whether the caller named the item: only then does it rename the same URL already waiting. */
  titleGiven: boolean;
}

export type AddOutcome = 'added' | 'title_updated' | 'already_queued';

/** An item's answer: its outcome, or the refusal it fails with (account gone, queue full). */
export type EnqueueResult = { outcome: AddOutcome } | { error: TidingsError };

/**
 * Validates and normalises an offered item. Throws the TidingsError it is refused with. A title over the
 * limit is refused when a person gave it (a save: they can shorten it), and shortened on a word, with "…",
 * when a source wrote it (a feed): an item is never lost for its title.
 */
export function checkItem(input: QueueInput): QueueItem {
  const checked = checkUrl(input.url);
  return {
    url: checked.url,
    urlKey: checked.key,
    title: checkTitle(input.title, checked.url, input.source === 'api' ? 'refuse' : 'shorten'),
    // A feed never renames what is already queued (a title the reader saved, or another feed's).
    titleGiven: input.source !== 'feed' && input.title !== undefined && input.title.trim() !== '',
    source: input.source,
    feedId: input.feedId ?? null,
    summary: input.summary ?? null,
    publishedAt: input.publishedAt ?? null,
    imageUrl: input.imageUrl ?? null,
  };
}

export interface Enqueued {
  /** Each item's answer, in the order given. */
  results: EnqueueResult[];
  /** The queue's version this transaction advanced it to; null when the account does not exist. */
  version: number | null;
  /** An upper bound of the queue's length after the items, when one was read or known. */
  bound: number | undefined;
}

/** What is offered to one account's queue: items in arrival order, each with its queue limit. */
export interface QueueOffers {
  accountId: number;
  offers: readonly Offer[];
}

/**
 * Offers items to one account's queue inside the caller's transaction (feed ingest); see enqueueMany.
 */
export async function enqueue(
  trx: Kysely<Database>,
  accountId: number,
  items: readonly QueueItem[],
  options: { engine: Engine; limit: number; bounds?: LengthBounds },
): Promise<Enqueued> {
  const offers = items.map((item) => ({ item, limit: options.limit }));
  const [done] = await enqueueMany(trx, options.engine, [{ accountId, offers }], options.bounds);
  if (done === undefined) throw new Error('no answer for the queue');
  return done;
}

/**
 * Offers items to several accounts' queues (distinct accounts) inside the caller's transaction (the API's
 * group commit), in a handful of statements whatever their number: takes the queues' locks, in account
 * id order, advancing each version once by the number of items offered to it; a bound of each queue's
 * length, unless `bounds` knows it as of the version before this transaction's (see LengthBounds); which
 * of the URLs are waiting; each queue's answers and writes by its rules (planQueue; a plan that refuses
 * an item for the limit is made again with the exact length: a bound is exact enough otherwise); every
 * new row inserted at once; the waiting rows a given title renames; the feeds' waiting rows a person
 * saved, made theirs (after the new rows: saves that share a transaction arrived together). A refused
 * item writes nothing. Answers in the order given.
 */
export async function enqueueMany(
  trx: Kysely<Database>,
  engine: Engine,
  queues: readonly QueueOffers[],
  bounds?: LengthBounds,
): Promise<Enqueued[]> {
  const versions = await lockQueues(
    trx,
    engine,
    queues.map((q) => ({ accountId: q.accountId, changes: q.offers.length })),
  );
  const live = queues.filter((q) => versions.has(q.accountId));
  const known = new Map<number, number>();
  for (const q of live) {
    const bound = bounds?.get(q.accountId, (versions.get(q.accountId) ?? 0) - q.offers.length);
    if (bound !== undefined) known.set(q.accountId, bound);
  }
  const unknown = live.map((q) => q.accountId).filter((id) => !known.has(id));
  for (const [id, bound] of await queueLengthBounds(trx, engine, unknown)) known.set(id, bound);
  const plans = await planAndWrite(trx, engine, live, known);
  for (const q of live) {
    const plan = plans.get(q.accountId);
    for (const { id, title } of plan?.retitles ?? []) {
      await updateQueueItemTitle(trx, q.accountId, id, title);
    }
    const adopts = plan?.adopts ?? [];
    if (adopts.length > 0 && (await adoptQueueItems(trx, q.accountId, adopts)) !== adopts.length)
      throw changed();
  }
  return answersOf(queues, versions, plans);
}

/**
 * enqueueMany in one statement, on PostgreSQL (store/queueItemBatches.ts, createQueueItemsAtOnce), for the
 * API's saves in the usual case: each queue's length bound is known as of the last version this process
 * wrote (LengthBounds), and no offer can reach the limit whatever is waiting. The queues are locked and
 * the rows inserted only if each queue is still at the version its bound was recorded at plus its offers
 * (nobody else wrote to it meanwhile, so the bound holds and nothing is refused), and the URLs that were
 * waiting are read; if a save that gives a title names one of them (it may rename it, a write planned
 * from what is read), or one of them came from another source (a feed's item, which a person's save
 * makes theirs), nothing is written. Then the plans made with what was waiting are exactly what was
 * written. Null when this cannot be used or did not write (at most the versions were advanced, which
 * tells caches to read again): the caller then runs enqueueMany in a transaction of its own.
 */
export async function enqueueManyAtOnce(
  store: Store,
  queues: readonly QueueOffers[],
  bounds: LengthBounds,
): Promise<Enqueued[] | null> {
  if (store.engine !== 'postgres') return null;
  const known = new Map<number, number>();
  const advances: QueueAdvance[] = [];
  const rows: NewQueueRow[] = [];
  const titled: boolean[] = [];
  for (const q of queues) {
    const latest = bounds.latest(q.accountId);
    if (latest === undefined) return null;
    const ahead = planQueue(q.offers, new Map(), latest.bound);
    if (refuses(ahead)) return null;
    known.set(q.accountId, latest.bound);
    const changes = q.offers.length;
    advances.push({ accountId: q.accountId, changes, version: latest.version + changes });
    const named = new Set(q.offers.filter((o) => o.item.titleGiven).map((o) => o.item.urlKey));
    for (const item of ahead.inserts) {
      rows.push({ accountId: q.accountId, ...item });
      titled.push(named.has(item.urlKey));
    }
  }
  const result = await createQueueItemsAtOnce(store.db, advances, rows, titled);
  if (result === null) return null;
  // The queues were at the versions expected: no account is gone, nothing was refused nor renamed.
  const versions = new Map(advances.map((a) => [a.accountId, a.version]));
  const waiting = byAccount(result.waiting);
  const plans = new Map<number, QueuePlan>();
  for (const q of queues) {
    const plan = planQueue(q.offers, waiting.get(q.accountId) ?? new Map(), known.get(q.accountId) ?? 0);
    if (refuses(plan) || plan.retitles.length > 0 || plan.adopts.length > 0) throw changed();
    plans.set(q.accountId, plan);
  }
  const inserts = [...plans.values()].reduce((n, p) => n + p.inserts.length, 0);
  if (result.inserted !== inserts) throw changed();
  return answersOf(queues, versions, plans);
}

/** Each queue's answers, version and bound, from its version (none: the account is gone) and plan. */
function answersOf(
  queues: readonly QueueOffers[],
  versions: ReadonlyMap<number, number>,
  plans: ReadonlyMap<number, QueuePlan>,
): Enqueued[] {
  return queues.map((q) => {
    const version = versions.get(q.accountId) ?? null;
    const plan = plans.get(q.accountId);
    if (version === null || plan === undefined)
      return { results: q.offers.map(gone), version: null, bound: undefined };
    return { results: plan.answers.map(answer), version, bound: plan.length };
  });
}

/** What is read under a queue's lock cannot change before it is written: every writer takes it first. */
const changed = (): Error => new Error('a queue changed under its lock');

/**
 * Plans each live queue's offers (its bound known) and inserts the new rows; the plans by account. When
 * no queue can reach its limit whatever is waiting, the rows are inserted as if none of the URLs were
 * waiting, by the statement that reads which were (ON CONFLICT skips those; they are planned as
 * duplicates): on PostgreSQL one round trip instead of two, on SQLite one statement per new URL.
 */
async function planAndWrite(
  trx: Kysely<Database>,
  engine: Engine,
  live: readonly QueueOffers[],
  known: ReadonlyMap<number, number>,
): Promise<Map<number, QueuePlan>> {
  // A queue's length read once, before this transaction inserts anything: planning again after the
  // insert must not count the rows it just wrote (a queue one place short of its limit was refused).
  const lengths = new Map<number, number>();
  const lengthOf = async (accountId: number): Promise<number> => {
    let length = lengths.get(accountId);
    if (length === undefined) lengths.set(accountId, (length = await queueLength(trx, accountId)));
    return length;
  };
  const plan = async (waiting: Map<number, Map<string, Waiting>>): Promise<Map<number, QueuePlan>> => {
    const plans = new Map<number, QueuePlan>();
    for (const q of live) {
      const found = waiting.get(q.accountId) ?? new Map<string, Waiting>();
      let p = planQueue(q.offers, found, known.get(q.accountId) ?? 0);
      if (refuses(p)) p = planQueue(q.offers, found, await lengthOf(q.accountId));
      plans.set(q.accountId, p);
    }
    return plans;
  };
  const rowsOf = (plans: Map<number, QueuePlan>): NewQueueRow[] =>
    live.flatMap((q) =>
      (plans.get(q.accountId)?.inserts ?? []).map((item) => ({ accountId: q.accountId, ...item })),
    );
  const ahead = await plan(new Map());
  if (![...ahead.values()].some(refuses)) {
    const { inserted, waiting } = await createQueueItemsReadingWaiting(trx, engine, rowsOf(ahead));
    const plans = await plan(byAccount(waiting));
    if (inserted !== rowsOf(plans).length) throw changed();
    return plans;
  }
  const keys = live.flatMap((q) =>
    [...new Set(q.offers.map((o) => o.item.urlKey))].map((urlKey) => ({ accountId: q.accountId, urlKey })),
  );
  const plans = await plan(byAccount(await queueItemsByKeys(trx, engine, keys)));
  const rows = rowsOf(plans);
  if ((await createQueueItems(trx, engine, rows)) !== rows.length) throw changed();
  return plans;
}

/** Waiting rows by account and url_key. */
function byAccount(rows: readonly WaitingByKey[]): Map<number, Map<string, Waiting>> {
  const found = new Map<number, Map<string, Waiting>>();
  for (const row of rows) {
    let queue = found.get(row.accountId);
    if (queue === undefined) found.set(row.accountId, (queue = new Map<string, Waiting>()));
    queue.set(row.urlKey, { id: row.id, title: row.title, source: row.source });
  }
  return found;
}

const gone = (): EnqueueResult => ({
  error: new TidingsError('account_gone', 'the account for this key no longer exists'),
});

function answer(planned: Planned): EnqueueResult {
  if ('outcome' in planned) return planned;
  const message = `the queue already holds ${planned.full} saved URLs (the limit is ${planned.limit}); it empties with the next digest`;
  return { error: new TidingsError('queue_full', message) };
}
