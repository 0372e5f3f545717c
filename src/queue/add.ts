import { isTidingsError } from '../errors.js';
import type { Metrics, SaveSource } from '../lib/metrics.js';
import type { Store } from '../store/db.js';
import { noteToRead } from '../store/toRead.js';
import { type AddOutcome, type QueueInput, checkItem } from './enqueue.js';
import { writerOf } from './writer.js';

export type { AddOutcome, QueueInput } from './enqueue.js';

/**
 * A person's own save of a link, the one way in for every one: the API (both variants, the bookmarklet),
 * the web app's Add form (and the share target), and any save of the kind to come (a wallabag-style
 * client's). Validated and normalised at once (a refusal throws its TidingsError before anything is
 * written), then written by the store's group commit, where a URL a feed queued becomes the person's own
 * (plan.ts planQueue). The caller has already authorised accountId. Each save gets the answer it would
 * get alone, in arrival order; a link added wakes this process's page reader (store/toRead.ts). With
 * `metrics`, the save is counted once answered, under `via` (where it came from; `api` by default). (An import queues nothing: its links go to the reading list,
 * imports/importLinks.ts.)
 */
export async function addSavedUrl(
  store: Store,
  accountId: number,
  input: QueueInput,
  options: { limit: number; metrics?: Metrics | undefined; via?: SaveSource },
): Promise<AddOutcome> {
  const { metrics, via = 'api' } = options;
  try {
    const outcome = await writerOf(store).add({ accountId, limit: options.limit, item: checkItem(input) });
    // Committed: this process's page reader reads the link now, not at its next poll.
    if (outcome === 'added') noteToRead(store, 'saved');
    metrics?.saved(via, outcome);
    return outcome;
  } catch (err) {
    metrics?.saved(via, isTidingsError(err) ? err.kind : 'error');
    throw err;
  }
}
