import type { Worker } from 'node:worker_threads';
import { startThread } from '../../lib/threads.js';
import type { Book } from './book.js';
import type { BuildReply } from './epubWorker.js';

/*
 * Where a digest's EPUB is made: its book (plain data, loaded from the database by the caller) is turned
 * into the file's bytes in a worker thread (epubWorker.ts), never on the thread that answers requests. At
 * 100 chapters of 512 KB of HTML a build is 2.2 s of CPU (the test fixtures' articles) to 11 s (markup of
 * lists and tables, on a loaded 2-core machine): every chapter re-written as XHTML, then zipped. On the
 * main thread the event loop stood still that long; with the thread its longest delay was 55-170 ms (the
 * book's copy to the thread).
 *
 * - **One build at a time** per process (BUILDS.size): the machine's other core keeps answering. A build
 *   takes a turn before its data is loaded, so the cap bounds the memory of loaded books too.
 * - **Waiting**: a request that finds the turn taken waits, at most BUILDS.waiting of them and each at
 *   most BUILDS.waitMs; past either it is refused at once with kind `busy` (the HTTP route's 503 with
 *   Retry-After). The e-reader mailer and the CLI wait as long as it takes (`queue: 'unbounded'`): they
 *   are background work, one build at a time each.
 * - **Threads**: none at idle. The first build starts one; it is kept BUILDS.idleMs after its last build,
 *   then ended; while idle it does not keep the process alive. Measured (a 10-chapter book, from dist/,
 *   on the loaded machine): a thread per build cost about 200 ms of start-up each (247 ms a build, 13 ms
 *   on a kept thread); a kept thread costs about 17 MB of RSS. Builds come in runs (the e-reader copies
 *   of a digest batch, one after another; a reader's second click), so a kept thread is the cheaper.
 * - **Limits**: a build has BUILDS.limits.timeMs from the moment a ready thread takes it, and a heap of
 *   oldMb; past either its thread is ended and the build fails with kind `failed`, as it does when the
 *   thread crashes or the build throws. The process goes on; the next build gets a fresh thread.
 */

export interface EpubLimits {
  timeMs: number;
  oldMb: number;
  youngMb: number;
}

export interface BuildsOptions {
  /** Builds in threads at once. */
  size: number;
  /** Builds (bounded ones) that may wait for a turn; past it they are refused at once. */
  waiting: number;
  /** How long a bounded build waits for its turn at most. */
  waitMs: number;
  /** How long a thread is kept after its last build; 0 ends it with each build. */
  idleMs: number;
  /** What the client is told to wait before asking again (Retry-After), in seconds. */
  retryAfterSeconds: number;
  limits: EpubLimits;
}

export const BUILDS: BuildsOptions = {
  size: 1,
  waiting: 8,
  waitMs: 15_000,
  idleMs: 30_000,
  retryAfterSeconds: 10,
  // The largest book grew a process by about 140 MB; a loaded machine took 11 s of the 60.
  limits: { timeMs: 60_000, oldMb: 512, youngMb: 32 },
};

/** Why a build gave no file: `busy` (no turn; try again later) or `failed` (its thread crashed or passed a limit). */
export class EpubBuildError extends Error {
  override name = 'EpubBuildError';
  constructor(
    readonly kind: 'busy' | 'failed',
    message: string,
    /** For `busy`: seconds to wait before asking again. */
    readonly retryAfterSeconds = 0,
  ) {
    super(message);
  }
}

export const isEpubBuildError = (err: unknown, kind?: EpubBuildError['kind']): err is EpubBuildError =>
  err instanceof EpubBuildError && (kind === undefined || err.kind === kind);

interface Build {
  id: number;
  book: Book;
  resolve: (bytes: Uint8Array) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout | null;
}

interface Thread {
  worker: Worker;
  ready: boolean;
  build: Build | null;
  idle: NodeJS.Timeout | null;
  /** Ended by us or found ended: its later events mean nothing. */
  ended: boolean;
}

interface Waiter {
  bounded: boolean;
  resolve: () => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout | null;
}

export class EpubBuilds {
  private running = 0;
  private readonly waiters: Waiter[] = [];
  private readonly idleThreads: Thread[] = [];
  private readonly busyThreads = new Set<Thread>();
  private nextId = 0;

  constructor(readonly options: BuildsOptions = BUILDS) {}

  /** Threads alive now (building or idle): 0 at idle, once idleMs has passed. */
  get threads(): number {
    return this.idleThreads.length + this.busyThreads.size;
  }

  /** Books being built now (in a thread, or loading before it). */
  get building(): number {
    return this.running;
  }

  /**
   * Takes a turn (waiting as `queue` says), runs `load` (on the caller's thread: the database), builds
   * its book in a thread and gives what `load` gave with the bytes; null when `load` gives null. Rejects
   * with an EpubBuildError (busy, failed) or what `load` threw.
   */
  async build<T extends { book: Book }>(
    load: () => Promise<T | null>,
    queue: 'bounded' | 'unbounded',
  ): Promise<(T & { bytes: Uint8Array }) | null> {
    await this.turn(queue === 'bounded');
    try {
      const loaded = await load();
      if (loaded === null) return null;
      return { ...loaded, bytes: await this.inThread(loaded.book) };
    } finally {
      this.release();
    }
  }

  /** Ends every thread; waiting and running builds fail. For tests and shutdown. */
  async close(): Promise<void> {
    for (const w of this.waiters.splice(0)) {
      if (w.timer !== null) clearTimeout(w.timer);
      w.reject(new EpubBuildError('failed', 'the EPUB builder was closed'));
    }
    const all = [...this.idleThreads.splice(0), ...this.busyThreads];
    this.busyThreads.clear();
    await Promise.all(all.map((t) => this.end(t, 'the EPUB builder was closed')));
  }

  private turn(bounded: boolean): Promise<void> {
    if (this.running < this.options.size) {
      this.running++;
      return Promise.resolve();
    }
    const { waiting, waitMs, retryAfterSeconds } = this.options;
    const busy = (): EpubBuildError =>
      new EpubBuildError(
        'busy',
        'other EPUBs are being made right now; try again in a moment',
        retryAfterSeconds,
      );
    if (bounded && this.waiters.filter((w) => w.bounded).length >= waiting) return Promise.reject(busy());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { bounded, resolve, reject, timer: null };
      if (bounded) {
        waiter.timer = setTimeout(() => {
          const at = this.waiters.indexOf(waiter);
          if (at !== -1) this.waiters.splice(at, 1);
          reject(busy());
        }, waitMs);
      }
      this.waiters.push(waiter);
    });
  }

  private release(): void {
    const next = this.waiters.shift();
    if (next === undefined) {
      this.running--;
      return;
    }
    if (next.timer !== null) clearTimeout(next.timer);
    next.resolve(); // the turn passes on: running stays
  }

  private inThread(book: Book): Promise<Uint8Array> {
    const thread = this.idleThreads.pop() ?? this.spawn();
    if (thread.idle !== null) clearTimeout(thread.idle);
    thread.idle = null;
    thread.worker.ref();
    this.busyThreads.add(thread);
    return new Promise((resolve, reject) => {
      thread.build = { id: this.nextId++, book, resolve, reject, timer: null };
      if (thread.ready) this.hand(thread);
    });
  }

  private hand(thread: Thread): void {
    const build = thread.build;
    if (build === null) return;
    const { timeMs } = this.options.limits;
    build.timer = setTimeout(() => {
      void this.fail(thread, `making the EPUB took more than ${timeMs / 1000} s`);
    }, timeMs);
    thread.worker.postMessage({ id: build.id, book: build.book });
  }

  private spawn(): Thread {
    const { oldMb, youngMb } = this.options.limits;
    const worker = startThread(import.meta.url, 'epubWorker', {
      resourceLimits: { maxOldGenerationSizeMb: oldMb, maxYoungGenerationSizeMb: youngMb },
    });
    const thread: Thread = { worker, ready: false, build: null, idle: null, ended: false };
    worker.on('message', (msg: { ready: true } | BuildReply) => {
      if (thread.ended) return;
      if ('ready' in msg) {
        thread.ready = true;
        this.hand(thread);
        return;
      }
      const build = thread.build;
      if (build === null || build.id !== msg.id) return;
      this.done(thread, build);
      if ('bytes' in msg) build.resolve(msg.bytes);
      else build.reject(new EpubBuildError('failed', `making the EPUB failed: ${msg.error}`));
    });
    const died = (err: unknown): void => {
      if (thread.ended) return; // ended by us, or 'exit' after 'error'
      const outOfMemory = (err as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
      const reason = outOfMemory
        ? `making the EPUB needed more than its ${oldMb} MB of memory`
        : `the EPUB's thread ended: ${err instanceof Error ? err.message : `exit code ${String(err)}`}`;
      void this.fail(thread, reason);
    };
    worker.on('error', died);
    worker.on('exit', died);
    return thread;
  }

  /** A build answered: its thread is idle again, kept idleMs (or ended now with idleMs 0). */
  private done(thread: Thread, build: Build): void {
    if (build.timer !== null) clearTimeout(build.timer);
    thread.build = null;
    this.busyThreads.delete(thread);
    if (this.options.idleMs <= 0) {
      void this.end(thread, '');
      return;
    }
    thread.worker.unref();
    thread.idle = setTimeout(() => {
      const at = this.idleThreads.indexOf(thread);
      if (at !== -1) this.idleThreads.splice(at, 1);
      void this.end(thread, '');
    }, this.options.idleMs);
    thread.idle.unref();
    this.idleThreads.push(thread);
  }

  /** The thread's build fails with `reason` and the thread is ended (a limit, a crash). */
  private async fail(thread: Thread, reason: string): Promise<void> {
    this.busyThreads.delete(thread);
    const at = this.idleThreads.indexOf(thread);
    if (at !== -1) this.idleThreads.splice(at, 1);
    await this.end(thread, reason);
  }

  private async end(thread: Thread, reason: string): Promise<void> {
    if (thread.ended) return;
    thread.ended = true;
    if (thread.idle !== null) clearTimeout(thread.idle);
    const build = thread.build;
    thread.build = null;
    if (build !== null) {
      if (build.timer !== null) clearTimeout(build.timer);
      build.reject(new EpubBuildError('failed', reason));
    }
    await thread.worker.terminate();
  }
}

/** This process's builds: one thread at most, started by the first build. */
export const epubBuilds = new EpubBuilds();
