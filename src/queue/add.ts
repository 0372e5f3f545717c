import { isTidingsError } from '../errors.js';
import type { Metrics, SaveSource } from '../lib/metrics.js';
import type { Store } from '../store/db.js';
import { type AddOutcome, type QueueInput, checkItem } from './enqueue.js';
import { writerOf } from './writer.js';

export type { AddOutcome, QueueInput } from './enqueue.js';

/**
 * A save from the API or the web app: validated and normalised at once (a refusal throws its TidingsError
 * before anything is written), then written by the store's group commit. The caller has already
 * authorised accountId. Each save gets the answer it would get alone, in arrival order. With `metrics`,
 * the save is counted once answered, under `via` (where it came from; `api` by default).
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
    metrics?.saved(via, outcome);
    return outcome;
  } catch (err) {
    metrics?.saved(via, isTidingsError(err) ? err.kind : 'error');
    throw err;
  }
}
