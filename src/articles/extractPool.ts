import type { Worker } from 'node:worker_threads';
import { startThread } from '../lib/threads.js';
import type { ExtractInput, PageExtract } from './extract.js';
import { LIMIT_REASONS, PAGE_TIME_LIMIT_MS, THREAD_OLD_MB, THREAD_YOUNG_MB } from './limits.js';
import { emptyExtract } from './types.js';

/** What one page's extraction may take in its thread (articles/limits.ts); tests give smaller ones. */
export interface ThreadLimits {
  /** From the moment the page is handed to a ready thread. */
  timeMs: number;
  /** The thread's heap: old space and young generation, in MB. */
  oldMb: number;
  youngMb: number;
}

export const THREAD_LIMITS: ThreadLimits = {
  timeMs: PAGE_TIME_LIMIT_MS,
  oldMb: THREAD_OLD_MB,
  youngMb: THREAD_YOUNG_MB,
};

/**
 * How often a page is handed to a thread that then ends for no reason of the page's limits (a crash):
 * once more in a fresh thread, then the page fails. A page over its time or memory limit fails at once.
 */
const MAX_TRIES = 2;

/** Threads that may crash in one pool (not counting pages past a limit) before it stops starting them. */
const MAX_CRASHES = 8;

interface Task {
  id: number;
  input: ExtractInput;
  tries: number;
  resolve: (extract: PageExtract) => void;
  reject: (err: Error) => void;
}

interface Thread {
  worker: Worker;
  /** Its modules are loaded: a page's clock starts when it is handed one. */
  ready: boolean;
  /** The page it is extracting: one at a time, so that a limit it passes is that page's. */
  task: Task | null;
  timer: NodeJS.Timeout | null;
  /** Ended by the pool (a time limit, close) or found ended: its later events mean nothing. */
  ended: boolean;
}

/** What a page that went past a limit gives: nothing read, and why (the reader fails the page with it). */
const refusedExtract = (task: Task, reason: string): PageExtract => ({
  ...emptyExtract('html', null, task.input.body.byteLength),
  refused: reason,
});

/**
 * extractPage in at most `size` worker threads, started when pages come: parsing and extraction never run
 * in the thread that serves requests, whatever the page. Each thread extracts one page at a time, under
 * `limits`: a page still in hand after `timeMs` has its thread ended, a page that fills the thread's heap
 * ends it; either way the page resolves with `refused` (the reason) and a fresh thread takes the next.
 * A thread that crashes otherwise gives its page to a fresh thread once more (MAX_TRIES). A page is never
 * extracted twice at once nor answered twice. The promise rejects only when the pool is closed before the
 * page was extracted, or its threads keep crashing (MAX_CRASHES): the reader then leaves the page to a
 * later pass.
 */
export class ExtractPool {
  private readonly threads: Thread[] = [];
  private readonly queue: Task[] = [];
  private nextId = 0;
  private closed = false;
  private crashes = 0;

  constructor(
    readonly size: number,
    /** Told of each thread that ended other than by close(): a page past a limit, or a crash. */
    private readonly onEnd: (err: unknown) => void = () => undefined,
    readonly limits: ThreadLimits = THREAD_LIMITS,
  ) {}

  extract(input: ExtractInput): Promise<PageExtract> {
    if (this.closed) return Promise.reject(new Error('the page extraction threads are closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, input, tries: 0, resolve, reject });
      this.dispatch();
    });
  }

  /** Ends the threads; pages not yet extracted are rejected (the reader reads them in a later pass). */
  async close(): Promise<void> {
    this.closed = true;
    const threads = this.threads.splice(0);
    const left = [...this.queue.splice(0), ...threads.flatMap((t) => (t.task === null ? [] : [t.task]))];
    for (const t of threads) this.forget(t);
    await Promise.all(threads.map((t) => t.worker.terminate()));
    for (const task of left) task.reject(new Error('the page reader stopped before this page was extracted'));
  }

  /** Hands queued pages to ready threads, and starts threads (up to `size`) for the pages still waiting. */
  private dispatch(): void {
    while (this.queue.length > 0) {
      const idle = this.threads.find((t) => t.ready && t.task === null);
      const next = idle === undefined ? undefined : this.queue.shift();
      if (idle !== undefined && next !== undefined) {
        this.hand(idle, next);
        continue;
      }
      const starting = this.threads.filter((t) => !t.ready).length;
      if (starting >= this.queue.length || this.threads.length >= this.size) break;
      if (this.crashes >= MAX_CRASHES) break;
      this.threads.push(this.spawn());
    }
    if (this.threads.length === 0 && this.queue.length > 0) {
      const err = new Error(`page extraction threads ended ${this.crashes} times; no more are started`);
      for (const task of this.queue.splice(0)) task.reject(err);
    }
  }

  private hand(thread: Thread, task: Task): void {
    task.tries++;
    thread.task = task;
    thread.timer = setTimeout(() => {
      this.end(thread, LIMIT_REASONS.time(this.limits.timeMs));
    }, this.limits.timeMs);
    thread.worker.postMessage({ id: task.id, input: task.input });
  }

  private spawn(): Thread {
    const worker = startThread(import.meta.url, 'extractWorker', {
      resourceLimits: {
        maxOldGenerationSizeMb: this.limits.oldMb,
        maxYoungGenerationSizeMb: this.limits.youngMb,
      },
    });
    const thread: Thread = { worker, ready: false, task: null, timer: null, ended: false };
    worker.on('message', (msg: { ready: true } | { id: number; extract: PageExtract }) => {
      if (thread.ended) return;
      if ('ready' in msg) thread.ready = true;
      else if (thread.task?.id === msg.id) {
        const task = thread.task;
        this.idle(thread);
        task.resolve(msg.extract);
      }
      this.dispatch();
    });
    const died = (err: unknown): void => {
      this.died(thread, err);
    };
    worker.on('error', died);
    worker.on('exit', died);
    return thread;
  }

  /** A page past its time limit: its thread is ended and the page refused. */
  private end(thread: Thread, reason: string): void {
    const task = thread.task;
    this.remove(thread);
    void thread.worker.terminate();
    this.onEnd(new Error(`a page extraction thread was stopped: ${reason}`));
    if (task !== null) task.resolve(refusedExtract(task, reason));
    this.dispatch();
  }

  /** A thread ended by itself: its page filled the heap (refused), or it crashed (tried once more). */
  private died(thread: Thread, err: unknown): void {
    if (thread.ended) return; // ended by the pool, or 'exit' after 'error'
    const task = thread.task;
    this.remove(thread);
    this.onEnd(err);
    const outOfMemory = (err as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
    if (!outOfMemory) this.crashes++;
    if (task !== null) {
      if (outOfMemory) task.resolve(refusedExtract(task, LIMIT_REASONS.memory(this.limits.oldMb)));
      else if (task.tries >= MAX_TRIES) {
        task.resolve(refusedExtract(task, `reading the page ended its thread ${task.tries} times`));
      } else this.queue.unshift(task);
    }
    this.dispatch();
  }

  private idle(thread: Thread): void {
    if (thread.timer !== null) clearTimeout(thread.timer);
    thread.timer = null;
    thread.task = null;
  }

  private forget(thread: Thread): void {
    this.idle(thread);
    thread.ended = true;
  }

  private remove(thread: Thread): void {
    const at = this.threads.indexOf(thread);
    if (at !== -1) this.threads.splice(at, 1);
    this.forget(thread);
  }
}
