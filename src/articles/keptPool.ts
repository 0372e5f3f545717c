import type { ExtractPool } from './extractPool.js';
import type { Extractor } from './reader.js';

/**
 * A worker's extraction threads, kept from pass to pass: starting a thread costs ~250 ms of CPU (over a
 * second on a busy machine), reading a page with it ~5 ms, and a pass may read one page: a link just saved
 * would otherwise wait for a thread of its own. The threads end after THREAD_IDLE_MS without a page, or
 * after THREAD_PAGES pages, so that a pool whose threads kept crashing (it then starts no more) is new.
 */
export const THREAD_IDLE_MS = 60_000;
export const THREAD_PAGES = 200;

export class KeptPool {
  private kept: { pool: ExtractPool; usedAt: number; pages: number } | null = null;

  constructor(private readonly make: () => ExtractPool) {}

  /** What a pass extracts with: the kept threads (a pool made if there is none; threads start with a page). */
  extractor(): Extractor {
    const kept = (this.kept ??= { pool: this.make(), usedAt: performance.now(), pages: 0 });
    return (input) => kept.pool.extract(input);
  }

  /** After a pass that read `pages` pages: the threads end if idle too long, or used long enough. */
  async passed(pages: number): Promise<void> {
    const kept = this.kept;
    if (kept === null) return;
    kept.pages += pages;
    if (pages > 0) kept.usedAt = performance.now();
    if (kept.pages >= THREAD_PAGES || performance.now() - kept.usedAt > THREAD_IDLE_MS) await this.close();
  }

  async close(): Promise<void> {
    const ending = this.kept;
    this.kept = null;
    await ending?.pool.close();
  }
}

/** `given` (a worker's kept threads), or threads of the pass's own, made by `make` and ended with it. */
export function passThreads(
  given: Extractor | undefined,
  make: () => ExtractPool,
): { extract: Extractor; close: () => Promise<void> } {
  if (given !== undefined) return { extract: given, close: () => Promise.resolve() };
  const pool = make();
  return { extract: (input) => pool.extract(input), close: () => pool.close() };
}
