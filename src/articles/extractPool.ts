import type { Worker } from 'node:worker_threads';
import { startThread } from '../lib/threads.js';
import { type ExtractInput, type PageExtract, extractPage } from './extract.js';

/**
 * The heap limits of each extraction thread, in MB: old space, and the young generation (where a DOM's
 * short-lived nodes are made and die). A page that would need more ends its thread (the pool tries it
 * once more, then in the main thread) instead of growing the process. Measured with `npm run
 * bench:enrich` (BENCHMARKS.md, session 7, 2,000 pages on a quiet 2-core machine): a young generation of
 * 24 MB gave 39.9 pages/s and a peak RSS of 306 MiB; 8 MB gave 42.5, 44.7 and 42.9 pages/s and 288, 285
 * and 295 MiB. Two threads' young generations are most of the difference; a smaller one did not cost
 * speed here (the DOM's short-lived nodes die young either way).
 */
const THREAD_OLD_MB = 128;
const THREAD_YOUNG_MB = 8;

/** How often a page whose thread died is given to a fresh thread before the main thread extracts it. */
const MAX_TRIES = 2;

/** Threads that may die in one pool before it stops starting them and extracts in the main thread. */
const MAX_DEATHS = 8;

interface Task {
  id: number;
  input: ExtractInput;
  tries: number;
  resolve: (extract: PageExtract) => void;
}

interface Thread {
  worker: Worker;
  /** The tasks sent to it and not yet answered, by id. */
  busy: Map<number, Task>;
}

/**
 * extractPage in `size` worker threads, so that extraction (the page reader's CPU) runs on other cores
 * while the main thread fetches and records. Pages go to the thread with the fewest in hand. A thread
 * that dies (a crash, its heap limit) is replaced; each page it held is given to a fresh thread once
 * more, then extracted in the main thread as it was before threads: a page is never dropped nor answered
 * twice, and the promise never rejects. After MAX_DEATHS deaths (threads cannot start, say) the pool
 * extracts everything in the main thread. `close` ends the threads (pages still out are extracted here).
 */
export class ExtractPool {
  private readonly threads: Thread[] = [];
  private nextId = 0;
  private closed = false;
  private deaths = 0;

  constructor(
    readonly size: number,
    /** Told of each thread that ended other than by close(): a crash, or a page over its heap limit. */
    private readonly onDeath: (err: unknown) => void = () => undefined,
  ) {
    for (let i = 0; i < size; i++) this.threads.push(this.spawn());
  }

  extract(input: ExtractInput): Promise<PageExtract> {
    if (this.closed) return Promise.resolve(extractPage(input));
    return new Promise((resolve) => {
      this.send({ id: this.nextId++, input, tries: 0, resolve });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const threads = this.threads.splice(0);
    const left = threads.flatMap((t) => [...t.busy.values()]);
    for (const t of threads) t.busy.clear();
    await Promise.all(threads.map((t) => t.worker.terminate()));
    for (const task of left) task.resolve(extractPage(task.input));
  }

  private send(task: Task): void {
    task.tries++;
    let thread = this.threads[0];
    for (const t of this.threads) if (thread === undefined || t.busy.size < thread.busy.size) thread = t;
    if (thread === undefined || task.tries > MAX_TRIES) {
      task.resolve(extractPage(task.input));
      return;
    }
    thread.busy.set(task.id, task);
    thread.worker.postMessage({ id: task.id, input: task.input });
  }

  private spawn(): Thread {
    const worker = startThread(import.meta.url, 'extractWorker', {
      resourceLimits: { maxOldGenerationSizeMb: THREAD_OLD_MB, maxYoungGenerationSizeMb: THREAD_YOUNG_MB },
    });
    const thread: Thread = { worker, busy: new Map() };
    worker.on('message', (msg: { id: number; extract: PageExtract }) => {
      const task = thread.busy.get(msg.id);
      if (task === undefined) return;
      thread.busy.delete(msg.id);
      task.resolve(msg.extract);
    });
    const died = (err: unknown): void => {
      const at = this.threads.indexOf(thread);
      if (at === -1) return; // closed, or already replaced ('error' is followed by 'exit')
      this.onDeath(err);
      if (++this.deaths < MAX_DEATHS) this.threads[at] = this.spawn();
      else this.threads.splice(at, 1);
      const lost = [...thread.busy.values()];
      thread.busy.clear();
      for (const task of lost) this.send(task);
    };
    worker.on('error', died);
    worker.on('exit', died);
    return thread;
  }
}
