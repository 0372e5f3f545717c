import { type Worker, startLoop, workerId } from '../lib/workers.js';
import { nextPageDueAt } from '../store/pages.js';
import { type ReaderDeps, readerTime } from './deps.js';
import { type EnrichOptions, enrichOnce } from './enrich.js';

/**
 * Reads saved pages in the background until stopped: a pass, then a sleep until the next page is due (at
 * most `maxSleepMs`, so links saved through other processes are noticed).
 */
export function startPageReader(
  deps: ReaderDeps,
  opts: Partial<EnrichOptions> & { maxSleepMs?: number } = {},
): Worker {
  const owner = workerId();
  const maxSleepMs = opts.maxSleepMs ?? 30_000;
  return startLoop({
    name: 'page reader',
    pass: async (signal) => {
      const s = await enrichOnce(deps, { ...opts, owner, signal });
      if (s.pages > 0 || s.linked > 0 || s.forgotten > 0) deps.log.info({ ...s }, 'page reader pass');
    },
    sleepMs: () => sleepMs(deps, maxSleepMs),
    log: deps.log,
    failed: 'page reader pass failed; retrying shortly',
  });
}

async function sleepMs(deps: ReaderDeps, maxSleepMs: number): Promise<number> {
  try {
    const next = await nextPageDueAt(deps.store.db);
    if (next === null) return maxSleepMs;
    return Math.min(maxSleepMs, Math.max(1000, Date.parse(next) - readerTime(deps).getTime()));
  } catch {
    return maxSleepMs;
  }
}
