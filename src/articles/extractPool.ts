import { type LimitClock, REAL_CLOCK, ThreadPool, type ThreadLimits } from '../lib/threadPool.js';
import type { ExtractInput, PageExtract } from './extract.js';
import { LIMIT_REASONS, PAGE_TIME_LIMIT_MS, THREAD_OLD_MB, THREAD_YOUNG_MB } from './limits.js';
import { emptyExtract } from './types.js';

export type { ThreadLimits } from '../lib/threadPool.js';

export const THREAD_LIMITS: ThreadLimits = {
  timeMs: PAGE_TIME_LIMIT_MS,
  oldMb: THREAD_OLD_MB,
  youngMb: THREAD_YOUNG_MB,
};

/** What a page that went past a limit gives: nothing read, and why (the reader fails the page with it). */
const refusedExtract = (input: ExtractInput, reason: string): PageExtract => ({
  ...emptyExtract('html', null, input.body.byteLength),
  refused: reason,
});

/**
 * extractPage in at most `size` worker threads (extractWorker.ts), by the rules of lib/threadPool.ts:
 * a page past its time or heap limit, or whose thread crashed twice, is refused (the reader fails it).
 * The promise rejects only when the pool is closed before the page was extracted, or its threads keep
 * crashing: the reader then leaves the page to a later pass.
 */
export class ExtractPool extends ThreadPool<ExtractInput, PageExtract> {
  constructor(
    size: number,
    onEnd: (err: unknown) => void = () => undefined,
    limits: ThreadLimits = THREAD_LIMITS,
    clock: LimitClock = REAL_CLOCK,
  ) {
    super(
      size,
      {
        from: import.meta.url,
        entry: 'extractWorker',
        refuse: refusedExtract,
        closedReason: 'the page reader stopped before this page was extracted',
        reasons: {
          time: LIMIT_REASONS.time,
          memory: LIMIT_REASONS.memory,
          crashed: (tries) => `reading the page ended its thread ${tries} times`,
        },
      },
      limits,
      onEnd,
      clock,
    );
  }

  extract(input: ExtractInput): Promise<PageExtract> {
    return this.run(input);
  }
}
