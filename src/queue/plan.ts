import type { QueueSource } from '../store/schema.js';
import type { AddOutcome, QueueItem } from './enqueue.js';

/** An item offered to a queue, with the queue limit it is offered under. */
export interface Offer {
  item: QueueItem;
  limit: number;
}

/** A URL waiting in the queue before the transaction: its row, title and where it came from. */
export interface Waiting {
  id: number;
  title: string;
  source: QueueSource;
}

/** What an offer comes to: an outcome, or a refusal because the queue held `full` items (queue_full). */
export type Planned = { outcome: AddOutcome } | { full: number; limit: number };

/** A waiting row a person's save makes theirs (see planQueue): its final title, and the save's source. */
export interface Adopted {
  id: number;
  title: string;
  source: QueueSource;
}

/** The writes that give each offer its planned answer. */
export interface QueuePlan {
  /** Each offer's answer, in the order given. */
  answers: Planned[];
  /** The rows to insert, in arrival order (ids follow it), each with its final title. */
  inserts: QueueItem[];
  /** Waiting rows a given title renamed, with their final title. */
  retitles: Waiting[];
  /** Waiting rows of a feed that a person saved, in the order saved: each becomes the person's own. */
  adopts: Adopted[];
  /** The queue's length after the writes, counted from the length planned with. */
  length: number;
}

/** Whether an item of this source is a person's own save (the API, the web app: anything but a feed). */
export const isOwnSave = (source: QueueSource): boolean => source !== 'feed';

/**
 * The queue's rules, in one place, for offers made one after the other to a queue whose waiting URLs
 * (by url_key) and length are known: an offer whose URL is waiting (before the transaction, or added by
 * an earlier offer) is deduplicated (`already_queued`, or `title_updated` when it gives another title);
 * a new URL is `added` unless the queue already holds `limit` items, and then refused. A person's save of
 * a URL a feed queued makes the item theirs (`added`, never refused: the queue does not grow): a saved
 * link from then on, placed among the saved links as if saved now, with the save's title if it gives one,
 * its feed still known (the digest names it on the entry's "Also in:" line). Pure: the caller reads the
 * state under the queue's lock, and writes the plan in the same transaction.
 *
 * `length` may be an upper bound of the queue's length: a plan with no refusal is then exact; one with a
 * refusal must be made again with the exact length (see `refuses`).
 */
export function planQueue(
  offers: readonly Offer[],
  waiting: ReadonlyMap<string, Waiting>,
  length: number,
): QueuePlan {
  const seen = new Map<string, Slot>();
  const answers: Planned[] = [];
  const inserts: QueueItem[] = [];
  /** The waiting rows adopted, in the order their saves came. */
  const adopted: { id: number; source: QueueSource; slot: Slot }[] = [];
  let n = length;
  for (const { item, limit } of offers) {
    let slot = seen.get(item.urlKey);
    if (slot === undefined) {
      const row = waiting.get(item.urlKey);
      if (row !== undefined) {
        slot = { title: row.title, row, fromFeed: !isOwnSave(row.source), renamed: false, adopted: false };
        seen.set(item.urlKey, slot);
      }
    }
    if (slot !== undefined && slot.fromFeed && isOwnSave(item.source)) {
      slot.fromFeed = false;
      if (item.titleGiven) slot.title = item.title;
      // Queued by a feed earlier in this batch: inserted as the person's save instead.
      if ('urlKey' in slot.row) slot.row.source = item.source;
      else {
        slot.adopted = true;
        adopted.push({ id: slot.row.id, source: item.source, slot });
      }
      answers.push({ outcome: 'added' });
    } else if (slot !== undefined) {
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
      const fromFeed = !isOwnSave(item.source);
      seen.set(item.urlKey, { title: item.title, row, fromFeed, renamed: false, adopted: false });
      n++;
      answers.push({ outcome: 'added' });
    }
  }
  const retitles: Waiting[] = [];
  for (const { title, row, renamed, adopted: taken } of seen.values()) {
    if ('urlKey' in row) row.title = title;
    else if (renamed && !taken) retitles.push({ ...row, title });
  }
  const adopts = adopted.map(({ id, source, slot }) => ({ id, title: slot.title, source }));
  return { answers, inserts, retitles, adopts, length: n };
}

/** What planQueue knows of a URL of the batch: its title so far, its row, whether a feed's it still is. */
interface Slot {
  title: string;
  /** The row to insert, or the waiting row. */
  row: QueueItem | Waiting;
  fromFeed: boolean;
  renamed: boolean;
  adopted: boolean;
}

/** Whether the plan refuses an offer (then, if it was made with a bound, it needs the exact length). */
export function refuses(plan: QueuePlan): boolean {
  return plan.answers.some((a) => 'full' in a);
}
