import { type Worker, startLoop, workerId } from '../lib/workers.js';
import { nextPageDueAt } from '../store/pages.js';
import { onToRead } from '../store/toRead.js';
import { type ReaderDeps, readerTime } from './deps.js';
import { type EnrichOptions, type ForgetCursor, enrichOnce, extractThreads } from './enrich.js';
import { KeptPool } from './keptPool.js';

/**
 * Reads saved pages in the background until stopped: a pass, then a sleep until the next page is due (at
 * most `maxSleepMs`, so that links saved through other processes are noticed where nothing tells of
 * them). A link saved meanwhile ends the sleep at once: by this process, or on PostgreSQL by any
 * (store/toRead.ts). The extraction threads are kept from pass to pass (keptPool.ts), so that a link
 * just saved does not wait for a thread to start.
 */
export function startPageReader(
  deps: ReaderDeps,
  opts: Partial<EnrichOptions> & { maxSleepMs?: number } = {},
): Worker {
  const owner = workerId();
  const maxSleepMs = opts.maxSleepMs ?? 30_000;
  const threads = new KeptPool(() => extractThreads(deps));
  const forget: ForgetCursor = { after: 0 };
  const loop = startLoop({
    name: 'page reader',
    pass: async (signal) => {
      const s = await enrichOnce(deps, { ...opts, owner, signal, extract: threads.extractor(), forget });
      if (s.pages > 0 || s.linked > 0 || s.forgotten > 0) deps.log.info({ ...s }, 'page reader pass');
      await threads.passed(s.pages);
    },
    sleepMs: () => sleepMs(deps, maxSleepMs),
    log: deps.log,
    failed: 'page reader pass failed; retrying shortly',
    wakeOn: (wake) => onToRead(deps.store, 'saved', wake),
  });
  return {
    name: loop.name,
    stop: async () => {
      await loop.stop();
      await threads.close();
    },
  };
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
