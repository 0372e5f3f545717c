import type { Store } from '../store/db.js';
import { type AddOutcome, type QueueInput, checkItem } from './enqueue.js';
import { writerOf } from './writer.js';

export type { AddOutcome, QueueInput } from './enqueue.js';

/**
 * A save from the API or the web app: validated and normalised at once (a refusal throws its TidingsError
 * before anything is written), then written by the store's group commit. The caller has already
 * authorised accountId. Each save gets the answer it would get alone, in arrival order.
 */
export async function addSavedUrl(
  store: Store,
  accountId: number,
  input: QueueInput,
  options: { limit: number },
): Promise<AddOutcome> {
  return writerOf(store).add({ accountId, limit: options.limit, item: checkItem(input) });
}
