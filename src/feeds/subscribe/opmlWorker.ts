import { parentPort, workerData } from 'node:worker_threads';
import { TidingsError } from '../../errors.js';
import { checkOutlineCount } from './limits.js';
import type { OpmlOutline } from './opml.js';
import { parseOpmlList } from './opmlRead.js';
import type { OpmlJob, OpmlMessage } from './opmlThread.js';

/**
 * The thread opmlThread.ts starts for one file: parses it, counts its feeds against the limit, and hands
 * the outlines over a chunk at a time, the next one when the main thread asks for it. Sent all at once,
 * they would wait in the port together, and the main thread takes every waiting message in one go: the
 * 50,000 outlines of a large file would then hold it for a tenth of a second or more.
 */

/** Outlines a message: each takes the main thread about a millisecond to receive. */
const CHUNK = 500;

const port = parentPort;
if (port === null) throw new Error('opmlWorker.ts runs as a worker thread (see opmlThread.ts)');
const job = workerData as OpmlJob;
const send = (message: OpmlMessage): void => {
  port.postMessage(message);
};

let outlines: OpmlOutline[] = [];
let withoutUrl = 0;
try {
  ({ outlines, withoutUrl } = parseOpmlList(Buffer.from(job.bytes)));
  checkOutlineCount(outlines.length, job.maxOutlines);
} catch (err) {
  if (!(err instanceof TidingsError)) throw err; // the 'error' event, in the main thread
  send({ kind: 'refused', error: { kind: err.kind, message: err.message, facts: err.facts } });
  outlines = [];
}

let next = 0;
/** The next chunk, or `done` after the last. */
const sendNext = (): void => {
  if (next >= outlines.length) {
    send({ kind: 'done', withoutUrl });
    return;
  }
  send({ kind: 'outlines', outlines: outlines.slice(next, next + CHUNK) });
  next += CHUNK;
};
port.on('message', sendNext); // the main thread asks for each chunk after the first
sendNext();
