import { parentPort, workerData } from 'node:worker_threads';
import { isTidingsError } from '../errors.js';
import { lowerThreadPriority } from '../lib/threads.js';
import { importCounts } from './counts.js';
import { type PreparedImport, prepareImport } from './prepare.js';
import type { ImportFormat } from './record.js';
import type { FromImportThread, ToImportThread } from './importThread.js';

/**
 * A thread of imports/importThread.ts: reads the file it was started with (parsing, URL checks, the
 * sanitising of readable HTML: imports/prepare.ts), answers with the counts, then hands the links over a
 * batch at a time as it is asked (each message small, so the server's thread never copies a whole file's
 * links at once). A file that is refused answers with the error's kind and message.
 *
 * On Linux the thread lowers its own priority (nice 10, per thread there), as the page extraction threads
 * do: when an import and requests want the same core, requests come first.
 */
lowerThreadPriority();

const input = workerData as { bytes: Uint8Array; format: ImportFormat | 'auto'; at: string };
const post = (msg: FromImportThread): void => {
  parentPort?.postMessage(msg);
};

post({ kind: 'started' });
let prepared: PreparedImport | null = null;
try {
  prepared = prepareImport(input.bytes, input.format, input.at);
} catch (err) {
  if (!isTidingsError(err)) throw err; // a bug: the thread's 'error' event carries it
  post({ kind: 'refused', error: { kind: err.kind, message: err.message, facts: err.facts } });
}
if (prepared !== null) {
  const { links } = prepared;
  // The counts with only the few bad rows shown: a file of 100,000 bad rows sends five.
  post({ kind: 'read', counts: importCounts(prepared, { imported: 0, merged: 0 }), links: links.length });
  let next = 0;
  parentPort?.on('message', (msg: ToImportThread) => {
    post({ kind: 'batch', links: links.slice(next, next + msg.batch) });
    next += msg.batch;
  });
}
