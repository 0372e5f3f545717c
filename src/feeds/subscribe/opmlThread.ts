import type { Worker } from 'node:worker_threads';
import { startThread } from '../../lib/threads.js';
import { type ErrorKind, type RefusalFacts, TidingsError } from '../../errors.js';
import type { OpmlList, OpmlOutline } from './opml.js';

/** What the reading thread is given. */
export interface OpmlJob {
  bytes: Uint8Array;
  maxOutlines: number;
}

/**
 * What it answers: chunks of outlines, each after the main thread asks for the next (any message), then
 * `done`; or `refused` (the file cannot be read, or lists too many feeds).
 */
export type OpmlMessage =
  | { kind: 'outlines'; outlines: OpmlOutline[] }
  | { kind: 'refused'; error: { kind: ErrorKind; message: string; facts: RefusalFacts | undefined } }
  | { kind: 'done'; withoutUrl: number };

/**
 * Heap of the reading thread, in MB. The largest file taken (MAX_OPML_BYTES, 5 MiB) parses in well under
 * 100 MB; a file built to need more ends the thread, and is refused, instead of growing the process.
 */
const THREAD_HEAP_MB = 256;

/**
 * The feeds of an OPML file (parseOpml), read in a thread of its own. Parsing takes about 10 µs a feed,
 * half a second for a 5 MiB file, which in the main thread would hold every other request that long;
 * and a file that lists more than `maxOutlines` feeds is refused there, so its outlines never cross over.
 * Throws TidingsError: invalid_input for a file that is not readable OPML, limit_reached for too many feeds.
 */
export async function readOpml(bytes: Uint8Array, maxOutlines: number): Promise<OpmlOutline[]> {
  return (await readOpmlList(bytes, maxOutlines)).outlines;
}

/** readOpml, with the count of outlines skipped for want of a feed address (parseOpmlList). */
export function readOpmlList(bytes: Uint8Array, maxOutlines: number): Promise<OpmlList> {
  return new Promise((resolve, reject) => {
    const job: OpmlJob = { bytes, maxOutlines };
    const worker = startReader(job);
    const outlines: OpmlOutline[] = [];
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      fn();
      void worker.terminate();
    };
    worker.on('message', (message: OpmlMessage) => {
      if (message.kind === 'outlines') {
        outlines.push(...message.outlines);
        worker.postMessage('next');
      } else if (message.kind === 'done') settle(() => resolve({ outlines, withoutUrl: message.withoutUrl }));
      else
        settle(() =>
          reject(new TidingsError(message.error.kind, message.error.message, { facts: message.error.facts })),
        );
    });
    worker.on('error', (err: Error) => {
      const tooBig = 'code' in err && err.code === 'ERR_WORKER_OUT_OF_MEMORY';
      const message = 'the file needs more memory to read than Tidings allows';
      const refusal = new TidingsError('invalid_input', message, { cause: err });
      settle(() => reject(tooBig ? refusal : err));
    });
    worker.on('exit', (code) => {
      settle(() => reject(new Error(`the OPML reading thread stopped early (exit code ${code})`)));
    });
  });
}

function startReader(job: OpmlJob): Worker {
  return startThread(import.meta.url, 'opmlWorker', {
    workerData: job,
    resourceLimits: { maxOldGenerationSizeMb: THREAD_HEAP_MB },
  });
}
