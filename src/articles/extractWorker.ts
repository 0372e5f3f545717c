import { parentPort } from 'node:worker_threads';
import { type ExtractInput, extractPage } from './extract.js';

/**
 * A thread of articles/extractPool.ts: extracts each page it is sent, in the order sent, and answers with
 * its number. extractPage never throws; anything else that goes wrong ends the thread, and the pool
 * gives the page to a fresh one.
 */
parentPort?.on('message', (task: { id: number; input: ExtractInput }) => {
  parentPort?.postMessage({ id: task.id, extract: extractPage(task.input) });
});
