import { constants, setPriority } from 'node:os';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Starts a worker thread on the module `entry` beside the caller (`from`: the caller's import.meta.url):
 * the compiled `entry.js` in dist/, or `entry.ts` when the caller itself runs from TypeScript (the tests,
 * under tsx). Node 20 does not run `--import` loaders in worker threads, so from source the thread
 * registers tsx itself before importing its entry.
 */
export function startThread(from: string, entry: string, options: WorkerOptions = {}): Worker {
  const fromSource = from.endsWith('.ts');
  const url = new URL(`./${entry}${fromSource ? '.ts' : '.js'}`, from);
  if (!fromSource) return new Worker(url, options);
  // Both of tsx's loaders: the ES modules', and CommonJS's for a require() (src/i18n/languages.ts
  // requires a language's catalogue at its first use).
  const load = `Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]).then(([esm, cjs]) => { esm.register(); cjs.register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(load, { ...options, eval: true });
}

/**
 * Called by a worker thread on itself: on Linux it lowers its own scheduling priority (nice 10; the nice
 * value is per thread there), so that when its work and the requests want the same core, requests come
 * first. Elsewhere the call would lower the whole process, so it is not made.
 */
export function lowerThreadPriority(): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(constants.priority.PRIORITY_BELOW_NORMAL);
  } catch {
    // Not allowed here (a sandbox): the thread runs at the process's priority.
  }
}
