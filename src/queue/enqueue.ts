import type { Kysely } from 'kysely';
import { TidingsError } from '../errors.js';
import { lockQueue } from '../store/accounts.js';
import {
  type NewQueueItem,
  createQueueItemIfAbsent,
  queueItemByKey,
  queueLength,
  queueLengthBound,
  updateQueueItemTitle,
} from '../store/queueItems.js';
import type { Database, QueueSource } from '../store/schema.js';
import type { LengthBounds } from './bounds.js';
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

/**
 * Offers items to one account's queue inside the caller's transaction (the API's group commit, feed
 * ingest): takes the queue's lock and advances its version once, by the number of items offered; then,
 * in order, inserts each item unless its URL is waiting, else dedupes it (a given title renames the
 * waiting item). The queue's length is read once (a bound, exact only when the queue may be full): an
 * item that would exceed `limit` is refused with queue_full and writes nothing. `bounds` may know the
 * length bound as of the version before this transaction's (see LengthBounds).
 */
export async function enqueue(
  trx: Kysely<Database>,
  accountId: number,
  items: readonly QueueItem[],
  options: { limit: number; bounds?: LengthBounds },
): Promise<Enqueued> {
  const version = await lockQueue(trx, accountId, items.length);
  if (version === null) {
    const gone = (): EnqueueResult => ({
      error: new TidingsError('account_gone', 'the account for this key no longer exists'),
    });
    return { results: items.map(gone), version, bound: undefined };
  }
  const queue: QueueState = {
    trx,
    accountId,
    limit: options.limit,
    bound: options.bounds?.get(accountId, version - items.length),
  };
  const results: EnqueueResult[] = [];
  for (const item of items) results.push(await add(queue, item));
  return { results, version, bound: queue.bound };
}

/** One account's queue inside a transaction that holds its lock. */
interface QueueState {
  trx: Kysely<Database>;
  accountId: number;
  limit: number;
  /** An upper bound of the queue's length, read on first use. */
  bound: number | undefined;
}

async function add(queue: QueueState, item: QueueItem): Promise<EnqueueResult> {
  const { trx, accountId, limit } = queue;
  queue.bound ??= await queueLengthBound(trx, accountId);
  if (queue.bound >= limit) {
    // Possibly full: an URL already waiting is still deduplicated; a new one needs the exact length.
    const outcome = await dedupe(queue, item);
    if (outcome !== null) return { outcome };
    const length = await queueLength(trx, accountId);
    if (length >= limit) {
      const message = `the queue already holds ${length} saved URLs (the limit is ${limit}); it empties with the next digest`;
      return { error: new TidingsError('queue_full', message) };
    }
    queue.bound = length;
  }
  if (await createQueueItemIfAbsent(trx, accountId, item)) {
    queue.bound++;
    return { outcome: 'added' };
  }
  const outcome = await dedupe(queue, item);
  if (outcome === null) throw new Error('queue item neither inserted nor found');
  return { outcome };
}

/** The answer for an item whose URL is already waiting; null when it is not. */
async function dedupe(queue: QueueState, item: QueueItem): Promise<AddOutcome | null> {
  const existing = await queueItemByKey(queue.trx, queue.accountId, item.urlKey);
  if (existing === null) return null;
  if (!item.titleGiven || existing.title === item.title) return 'already_queued';
  await updateQueueItemTitle(queue.trx, queue.accountId, existing.id, item.title);
  return 'title_updated';
}
