import type { AddOutcome, QueueItem } from './enqueue.js';

/** An item offered to a queue, with the queue limit it is offered under. */
export interface Offer {
  item: QueueItem;
  limit: number;
}

/** A URL waiting in the queue before the transaction: its row and title. */
export interface Waiting {
  id: number;
  title: string;
}

/** What an offer comes to: an outcome, or a refusal because the queue held `full` items (queue_full). */
export type Planned = { outcome: AddOutcome } | { full: number; limit: number };

/** The writes that give each offer its planned answer. */
export interface QueuePlan {
  /** Each offer's answer, in the order given. */
  answers: Planned[];
  /** The rows to insert, in arrival order (ids follow it), each with its final title. */
  inserts: QueueItem[];
  /** Waiting rows a given title renamed, with their final title. */
  retitles: Waiting[];
  /** The queue's length after the writes, counted from the length planned with. */
  length: number;
}

/**
 * The queue's rules, in one place, for offers made one after the other to a queue whose waiting URLs
 * (by url_key) and length are known: an offer whose URL is waiting (before the transaction, or added by
 * an earlier offer) is deduplicated (`already_queued`, or `title_updated` when it gives another title);
 * a new URL is `added` unless the queue already holds `limit` items, and then refused. Pure: the caller
 * reads the state under the queue's lock, and writes the plan in the same transaction.
 *
 * `length` may be an upper bound of the queue's length: a plan with no refusal is then exact; one with a
 * refusal must be made again with the exact length (see `refuses`).
 */
export function planQueue(
  offers: readonly Offer[],
  waiting: ReadonlyMap<string, Waiting>,
  length: number,
): QueuePlan {
  /** The title each URL of the batch has so far, and where it goes. */
  const seen = new Map<string, { title: string; row: QueueItem | Waiting; renamed: boolean }>();
  const answers: Planned[] = [];
  const inserts: QueueItem[] = [];
  let n = length;
  for (const { item, limit } of offers) {
    let slot = seen.get(item.urlKey);
    if (slot === undefined) {
      const row = waiting.get(item.urlKey);
      if (row !== undefined) {
        slot = { title: row.title, row, renamed: false };
        seen.set(item.urlKey, slot);
      }
    }
    if (slot !== undefined) {
      if (!item.titleGiven || slot.title === item.title) answers.push({ outcome: 'already_queued' });
      else {
        slot.title = item.title;
        slot.renamed = true;
        answers.push({ outcome: 'title_updated' });
      }
    } else if (n >= limit) {
      answers.push({ full: n, limit });
    } else {
      const row = { ...item };
      inserts.push(row);
      seen.set(item.urlKey, { title: item.title, row, renamed: false });
      n++;
      answers.push({ outcome: 'added' });
    }
  }
  const retitles: Waiting[] = [];
  for (const { title, row, renamed } of seen.values()) {
    if ('urlKey' in row) row.title = title;
    else if (renamed) retitles.push({ id: row.id, title });
  }
  return { answers, inserts, retitles, length: n };
}

/** Whether the plan refuses an offer (then, if it was made with a bound, it needs the exact length). */
export function refuses(plan: QueuePlan): boolean {
  return plan.answers.some((a) => 'full' in a);
}
