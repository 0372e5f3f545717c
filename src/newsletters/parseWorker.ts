import { parentPort, workerData } from 'node:worker_threads';
import { lowerThreadPriority } from '../lib/threads.js';
import { parseMessage } from './parse.js';

/**
 * The thread parseThread.ts starts for one message: parses it (parse.ts) and answers with what it read,
 * or why the message is malformed. A message past the thread's heap ends the thread; parseThread.ts then
 * counts it malformed. The thread runs below the requests' priority (lib/threads.ts).
 */
lowerThreadPriority();
const port = parentPort;
if (port === null) throw new Error('parseWorker.ts runs as a worker thread (see parseThread.ts)');
port.postMessage(await parseMessage(workerData as Uint8Array));
