import { parentPort } from 'node:worker_threads';
import { lowerThreadPriority } from '../lib/threads.js';
import { parseMessage } from './parse.js';

/**
 * A thread of parseThread.ts's pool (lib/threadPool.ts): says it is ready once its modules are loaded,
 * then parses each message it is sent (parse.ts) and answers with what it read, or why the message is
 * malformed. A message past the thread's heap ends the thread; the pool then counts it malformed. The
 * thread runs below the requests' priority (lib/threads.ts).
 */
lowerThreadPriority();
const port = parentPort;
if (port === null) throw new Error('parseWorker.ts runs as a worker thread (see parseThread.ts)');
port.on('message', (task: { id: number; input: Uint8Array }) => {
  void parseMessage(task.input).then((result) => port.postMessage({ id: task.id, result }));
});
port.postMessage({ ready: true });
