import { ThreadPool } from '../lib/threadPool.js';
import { PARSE_HEAP_MB, PARSE_THREADS, PARSE_TIME_LIMIT_MS, THREAD_MESSAGES } from './limits.js';
import type { ParseResult } from './parse.js';

/**
 * A raw message parsed in a thread (parseWorker.ts), never in the thread that answers requests:
 * postal-mime and the sanitiser are CPU bound, 0.1 s for a 10 MB message and 0.4 s for one of 20,000
 * parts (bench/newsletters-parse.ts), time /healthz would otherwise wait. The threads are kept between
 * messages (lib/threadPool.ts; starting one cost more than parsing a 100 KB newsletter in it, see
 * BENCHMARKS.md), at most PARSE_THREADS, each replaced after THREAD_MESSAGES messages. Each has a capped
 * heap (PARSE_HEAP_MB) and a message a capped time (PARSE_TIME_LIMIT_MS): a message past either is
 * malformed, its thread ended and replaced, and the process goes on. The parser is loaded by the
 * threads, never by the main one.
 */

export interface ParseLimits {
  timeMs: number;
  heapMb: number;
}

const DEFAULT_LIMITS: ParseLimits = { timeMs: PARSE_TIME_LIMIT_MS, heapMb: PARSE_HEAP_MB };

const malformed = (_raw: Uint8Array, reason: string): ParseResult => ({ malformed: reason });

/** A pool of `size` parse threads under `limits` (the process keeps one; tests make their own). */
export function parsePool(
  size: number,
  limits: ParseLimits,
  tasksPerThread = THREAD_MESSAGES,
): ThreadPool<Uint8Array, ParseResult> {
  return new ThreadPool<Uint8Array, ParseResult>(
    size,
    {
      from: import.meta.url,
      entry: 'parseWorker',
      refuse: malformed,
      closedReason: 'Tidings stopped before this message was read',
      reasons: {
        time: (ms) => `reading the message took longer than ${Math.round(ms / 1000)} s`,
        memory: (mb) => `reading the message needs more than the ${mb} MB Tidings allows`,
      },
      tasksPerThread,
      unref: true,
    },
    { timeMs: limits.timeMs, oldMb: limits.heapMb },
  );
}

let kept: ThreadPool<Uint8Array, ParseResult> | null = null;

/**
 * Parses `raw` in the process's kept threads; rejects only when a thread fails for a reason not of the
 * message's. Other `limits` (tests) get threads of their own, ended after the message.
 */
export async function parseInThread(
  raw: Uint8Array,
  limits: ParseLimits = DEFAULT_LIMITS,
): Promise<ParseResult> {
  if (limits === DEFAULT_LIMITS) return (kept ??= parsePool(PARSE_THREADS, DEFAULT_LIMITS)).run(raw);
  const own = parsePool(1, limits);
  try {
    return await own.run(raw);
  } finally {
    await own.close();
  }
}
