import type { Worker } from 'node:worker_threads';
import { startThread } from './threads.js';

/** What one task may take in its thread; tests give smaller ones. */
export interface ThreadLimits {
  /** From the moment the task is handed to a ready thread. */
  timeMs: number;
  /** The thread's heap: old space and (optionally) young generation, in MB. */
  oldMb: number;
  youngMb?: number;
}

/**
 * The clock of the time limit: `start` calls `timeUp` once `ms` have passed, unless the handle it gave is
 * cancelled first. The real one is setTimeout's; a test gives its own, to say when a task's time is up.
 */
export interface LimitClock {
  start(timeUp: () => void, ms: number): unknown;
  cancel(handle: unknown): void;
}

export const REAL_CLOCK: LimitClock = {
  start: (timeUp, ms) => setTimeout(timeUp, ms),
  cancel: (handle) => {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

/** What a pool runs, and how it words a task it refuses. */
export interface PoolJob<In, Out> {
  /** The thread's module beside `from` (an import.meta.url), started by lib/threads.ts startThread. */
  from: string;
  entry: string;
  /** What a task past a limit resolves with: `reason` says which. */
  refuse: (input: In, reason: string) => Out;
  reasons: {
    time: (ms: number) => string;
    memory: (mb: number) => string;
    crashed?: (tries: number) => string;
  };
  /** Why a task not run when the pool closed is rejected. */
  closedReason: string;
  /** Tasks one thread runs before it is replaced by a fresh one (nothing a task leaves behind lives on). */
  tasksPerThread?: number;
  /** Idle threads do not keep the process alive (a pool kept for the process's life). */
  unref?: boolean;
}

/**
 * How often a task is handed to a thread that then ends for no reason of the task's limits (a crash):
 * once more in a fresh thread, then the task is refused (or rejected, without `reasons.crashed`).
 */
const MAX_TRIES = 2;

/** Threads that may crash in one pool (not counting tasks past a limit) before it stops starting them. */
const MAX_CRASHES = 8;

interface Task<In, Out> {
  id: number;
  input: In;
  tries: number;
  resolve: (out: Out) => void;
  reject: (err: Error) => void;
}

interface Thread<In, Out> {
  worker: Worker;
  /** Its modules are loaded: a task's clock starts when it is handed one. */
  ready: boolean;
  /** The task it is running: one at a time, so that a limit it passes is that task's. */
  task: Task<In, Out> | null;
  /** The clock's handle for its task's time limit. */
  timer: { handle: unknown } | null;
  /** Tasks it has finished. */
  done: number;
  /** Ended by the pool (a time limit, retirement, close) or found ended: its later events mean nothing. */
  ended: boolean;
}

/**
 * A CPU-bound job in at most `size` worker threads, started when tasks come and kept between them:
 * it never runs in the thread that serves requests, whatever the input. The thread (entry module) says
 * `{ ready: true }` once loaded, then answers each `{ id, input }` with `{ id, result }`. Each thread runs
 * one task at a time, under `limits`: a task still in hand after `timeMs` has its thread ended, a task that
 * fills the thread's heap ends it; either way the task resolves with `refuse` (the reason) and a fresh
 * thread takes the next. A thread that crashes otherwise gives its task to a fresh thread once more
 * (MAX_TRIES). A thread is replaced after `tasksPerThread` tasks. A task is never run twice at once nor
 * answered twice. The promise rejects only when the pool is closed first, or its threads keep crashing.
 */
export class ThreadPool<In, Out> {
  private readonly threads: Thread<In, Out>[] = [];
  private readonly queue: Task<In, Out>[] = [];
  private nextId = 0;
  private closed = false;
  private crashes = 0;
  /** Threads started so far (tests count them). */
  started = 0;

  constructor(
    readonly size: number,
    private readonly job: PoolJob<In, Out>,
    readonly limits: ThreadLimits,
    /** Told of each thread that ended other than by close() or retirement: a task past a limit, or a crash. */
    private readonly onEnd: (err: unknown) => void = () => undefined,
    private readonly clock: LimitClock = REAL_CLOCK,
  ) {}

  run(input: In): Promise<Out> {
    if (this.closed) return Promise.reject(new Error(`the ${this.job.entry} threads are closed`));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, input, tries: 0, resolve, reject });
      this.dispatch();
    });
  }

  /** Ends the threads; tasks not yet run are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    const threads = this.threads.splice(0);
    const left = [...this.queue.splice(0), ...threads.flatMap((t) => (t.task === null ? [] : [t.task]))];
    for (const t of threads) this.forget(t);
    await Promise.all(threads.map((t) => t.worker.terminate()));
    for (const task of left) task.reject(new Error(this.job.closedReason));
  }

  /** Hands queued tasks to ready threads, and starts threads (up to `size`) for the tasks still waiting. */
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
      const err = new Error(`${this.job.entry} threads ended ${this.crashes} times; no more are started`);
      for (const task of this.queue.splice(0)) task.reject(err);
    }
  }

  private hand(thread: Thread<In, Out>, task: Task<In, Out>): void {
    task.tries++;
    thread.task = task;
    if (this.job.unref === true) thread.worker.ref();
    const handle = this.clock.start(() => {
      if (thread.task === task) this.end(thread, this.job.reasons.time(this.limits.timeMs));
    }, this.limits.timeMs);
    thread.timer = { handle };
    thread.worker.postMessage({ id: task.id, input: task.input });
  }

  private spawn(): Thread<In, Out> {
    this.started++;
    const { oldMb, youngMb } = this.limits;
    const worker = startThread(this.job.from, this.job.entry, {
      resourceLimits: {
        maxOldGenerationSizeMb: oldMb,
        ...(youngMb === undefined ? {} : { maxYoungGenerationSizeMb: youngMb }),
      },
    });
    const thread: Thread<In, Out> = { worker, ready: false, task: null, timer: null, done: 0, ended: false };
    worker.on('message', (msg: { ready: true } | { id: number; result: Out }) => {
      if (thread.ended) return;
      if ('ready' in msg) thread.ready = true;
      else if (thread.task?.id === msg.id) {
        const task = thread.task;
        this.idle(thread);
        thread.done++;
        if (thread.done >= (this.job.tasksPerThread ?? Infinity)) this.retire(thread);
        task.resolve(msg.result);
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

  /** A thread that has run its share of tasks: ended, and a fresh one starts with the next task. */
  private retire(thread: Thread<In, Out>): void {
    this.remove(thread);
    void thread.worker.terminate();
  }

  /** A task past its time limit: its thread is ended and the task refused. */
  private end(thread: Thread<In, Out>, reason: string): void {
    const task = thread.task;
    this.remove(thread);
    void thread.worker.terminate();
    this.onEnd(new Error(`a ${this.job.entry} thread was stopped: ${reason}`));
    if (task !== null) task.resolve(this.job.refuse(task.input, reason));
    this.dispatch();
  }

  /** A thread ended by itself: its task filled the heap (refused), or it crashed (tried once more). */
  private died(thread: Thread<In, Out>, err: unknown): void {
    if (thread.ended) return; // ended by the pool, or 'exit' after 'error'
    const task = thread.task;
    this.remove(thread);
    this.onEnd(err);
    const outOfMemory = (err as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
    if (!outOfMemory) this.crashes++;
    if (task !== null) {
      if (outOfMemory) task.resolve(this.job.refuse(task.input, this.job.reasons.memory(this.limits.oldMb)));
      else if (task.tries < MAX_TRIES) this.queue.unshift(task);
      else if (this.job.reasons.crashed === undefined)
        task.reject(new Error(`the ${this.job.entry} thread stopped early`));
      else task.resolve(this.job.refuse(task.input, this.job.reasons.crashed(task.tries)));
    }
    this.dispatch();
  }

  private idle(thread: Thread<In, Out>): void {
    if (thread.timer !== null) this.clock.cancel(thread.timer.handle);
    thread.timer = null;
    thread.task = null;
    if (this.job.unref === true) thread.worker.unref();
  }

  private forget(thread: Thread<In, Out>): void {
    this.idle(thread);
    thread.ended = true;
  }

  private remove(thread: Thread<In, Out>): void {
    const at = this.threads.indexOf(thread);
    if (at !== -1) this.threads.splice(at, 1);
    this.forget(thread);
  }
}
