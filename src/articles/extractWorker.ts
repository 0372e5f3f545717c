import { constants, setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { type ExtractInput, extractPage } from './extract.js';

/**
 * A thread of articles/extractPool.ts: says it is ready once its modules are loaded (the pool starts a
 * page's clock then), then extracts each page it is sent and answers with its number. extractPage never
 * throws; a page past its heap limit ends the thread, and the pool fails the page.
 *
 * On Linux the thread lowers its own scheduling priority (nice 10; the nice value is per thread there):
 * when extraction and requests want the same core, requests come first. Elsewhere the call would lower
 * the whole process, so it is not made.
 */
if (process.platform === 'linux') {
  try {
    setPriority(constants.priority.PRIORITY_BELOW_NORMAL);
  } catch {
    // Not allowed here (a sandbox): extraction runs at the process's priority.
  }
}
parentPort?.on('message', (task: { id: number; input: ExtractInput }) => {
  parentPort?.postMessage({ id: task.id, extract: extractPage(task.input) });
});
parentPort?.postMessage({ ready: true });
