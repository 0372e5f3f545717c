/** How many more turns of the event loop a batch may wait while items keep arriving. */
const SETTLE_TURNS = 3;

/**
 * Group commit's wait: calls `flush` at the end of this turn of the event loop, or, while `pending()`
 * keeps growing turn after turn (a busy server) and stays under `maxBatch`, up to SETTLE_TURNS turns
 * later, so that what arrives meanwhile shares the batch. A lone item waits one turn.
 */
export function afterSettling(pending: () => number, maxBatch: number, flush: () => void): void {
  let seen = pending();
  let turns = 0;
  const check = (): void => {
    const now = pending();
    if (now > seen && now < maxBatch && turns++ < SETTLE_TURNS) {
      seen = now;
      setImmediate(check);
      return;
    }
    flush();
  };
  setImmediate(check);
}
