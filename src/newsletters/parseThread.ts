import { startThread } from '../lib/threads.js';
import { Semaphore } from '../lib/semaphore.js';
import { PARSE_HEAP_MB, PARSE_THREADS, PARSE_TIME_LIMIT_MS } from './limits.js';
import type { ParseResult } from './parse.js';

/**
 * A raw message parsed in a thread of its own (parseWorker.ts), never in the thread that answers requests:
 * postal-mime and the sanitiser are CPU bound, 0.1 s for a 10 MB message and 0.4 s for one of 20,000
 * parts (bench/newsletters-parse.ts), time /healthz would otherwise wait. The thread has a capped heap
 * (PARSE_HEAP_MB) and time (PARSE_TIME_LIMIT_MS): a message past either is malformed, and the process
 * goes on. A fresh thread per message (nothing a hostile message leaves behind outlives it; a thread starts
 * in tens of milliseconds, against a daily limit of hundreds of messages), at most PARSE_THREADS at once.
 * The parser is loaded by the thread, never by the main one.
 */

export interface ParseLimits {
  timeMs: number;
  heapMb: number;
}

const DEFAULT_LIMITS: ParseLimits = { timeMs: PARSE_TIME_LIMIT_MS, heapMb: PARSE_HEAP_MB };

const threads = new Semaphore(PARSE_THREADS);

/** Parses `raw` in a thread; rejects only when the thread fails for a reason not of the message's. */
export function parseInThread(raw: Uint8Array, limits: ParseLimits = DEFAULT_LIMITS): Promise<ParseResult> {
  return threads.run(() => parseOnce(raw, limits));
}

function parseOnce(raw: Uint8Array, limits: ParseLimits): Promise<ParseResult> {
  return new Promise((resolve, reject) => {
    const worker = startThread(import.meta.url, 'parseWorker', {
      workerData: raw,
      resourceLimits: { maxOldGenerationSizeMb: limits.heapMb },
    });
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
      void worker.terminate();
    };
    const timer = setTimeout(() => {
      const seconds = Math.round(limits.timeMs / 1000);
      settle(() => resolve({ malformed: `reading the message took longer than ${seconds} s` }));
    }, limits.timeMs);
    worker.on('message', (result: ParseResult) => settle(() => resolve(result)));
    worker.on('error', (err: Error) => {
      const outOfMemory = 'code' in err && err.code === 'ERR_WORKER_OUT_OF_MEMORY';
      const message = `reading the message needs more than the ${limits.heapMb} MB Tidings allows`;
      settle(() => (outOfMemory ? resolve({ malformed: message }) : reject(err)));
    });
    worker.on('exit', (code) => {
      settle(() => reject(new Error(`the message parsing thread stopped early (exit code ${code})`)));
    });
  });
}
