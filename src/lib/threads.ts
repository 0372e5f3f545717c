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
  const load = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(load, { ...options, eval: true });
}
