import { parentPort } from 'node:worker_threads';
import { lowerThreadPriority } from '../lib/threads.js';
import { type ExtractInput, extractPage } from './extract.js';

/**
 * A thread of articles/extractPool.ts: says it is ready once its modules are loaded (the pool starts a
 * page's clock then), then extracts each page it is sent and answers with its number. extractPage never
 * throws; a page past its heap limit ends the thread, and the pool fails the page.
 *
 * The thread lowers its own scheduling priority (lib/threads.ts): requests come first.
 */
lowerThreadPriority();
parentPort?.on('message', (task: { id: number; input: ExtractInput }) => {
  parentPort?.postMessage({ id: task.id, result: extractPage(task.input) });
});
parentPort?.postMessage({ ready: true });
