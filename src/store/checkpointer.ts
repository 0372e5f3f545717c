import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { noteDatabaseFailure } from './unavailable.js';

/**
 * Checkpoints an SQLite database's write-ahead log from a thread of its own.
 *
 * In WAL mode every commit appends to the log; a checkpoint copies the log back into the database file
 * and fsyncs it. By default SQLite runs one inside whichever commit pushes the log past 1,000 pages, so
 * every few hundred saves one request would wait for an fsync with the event loop blocked (better-sqlite3
 * is synchronous). Here the server's own connection checkpoints only as a safety net (see
 * SAFETY_NET_PAGES in db.ts) and this thread, with its own connection, runs a PASSIVE checkpoint every
 * `intervalMs`: it never blocks writers or readers, and pages written many times in between are copied
 * once.
 *
 * On a full disk a checkpoint fails with SQLITE_FULL (the database file cannot grow): that marks writes as
 * failing for /readyz (unavailable.ts noteDatabaseFailure), and the next checkpoint is tried a second later
 * all the same, so that once space returns the log is copied back and cut short without anyone's help.
 */
export interface Checkpointer {
  /** Runs a last checkpoint and stops the thread. */
  stop(): Promise<void>;
  /** Whether a thread runs now: it ends while the database is quiet (see startCheckpointer). */
  readonly running: boolean;
}

export interface CheckpointerOptions {
  intervalMs?: number;
  /** Told about a failed checkpoint (the next one is tried all the same). */
  onError?: (message: string) => void;
  /** Checks in a row without a change after which the thread ends; IDLE_CHECKS unless a test says. */
  idleChecks?: number;
}

// Plain CommonJS run with `eval`, so the same code works from dist/ and under tsx in tests.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    parentPort.postMessage({ error: err instanceof Error ? err.message : String(err), code: err && err.code });
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

/** Checks in a row without a change to the database after which the thread ends (~30 s at 1 s). */
const IDLE_CHECKS = 30;

/**
 * `changes` reads something that differs after any commit to the database (this connection's or
 * another's). The thread runs while the database changes and ends after IDLE_CHECKS checks without a
 * change, with a last checkpoint: an idle server holds no thread (~10 MiB; issue 26). The next change
 * starts one again. Both decisions are taken here, on the main thread, so none can race a commit.
 */
export function startCheckpointer(
  file: string,
  changes: () => string,
  options: CheckpointerOptions = {},
): Checkpointer {
  const intervalMs = options.intervalMs ?? 1000;
  const idleChecks = options.idleChecks ?? IDLE_CHECKS;
  let thread: CheckpointThread | null = checkpointThread(file, intervalMs, options);
  /** Threads told to end after a quiet spell that have not yet: stop() waits for them, holding the process. */
  const ending = new Set<CheckpointThread>();
  let seen = changes();
  let quiet = 0;
  const check = setInterval(() => {
    const now = changes();
    if (now !== seen) {
      seen = now;
      quiet = 0;
      thread ??= checkpointThread(file, intervalMs, options);
    } else if (thread !== null && ++quiet >= idleChecks) {
      const quietThread = thread;
      ending.add(quietThread);
      void quietThread.stop(false).then(() => ending.delete(quietThread));
      thread = null;
    }
  }, intervalMs);
  check.unref();
  return {
    get running() {
      return thread !== null;
    },
    async stop() {
      clearInterval(check);
      // Held, each of them: an ending thread awaited unheld let the process run out of work and exit first.
      await Promise.all([...ending, ...(thread === null ? [] : [thread])].map((t) => t.stop()));
      thread = null;
    },
  };
}

/** One checkpointing thread; stop(false) ends it without holding the process open meanwhile, stop() holding it. */
interface CheckpointThread {
  stop(hold?: boolean): Promise<void>;
}

function checkpointThread(file: string, intervalMs: number, options: CheckpointerOptions): CheckpointThread {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, driver, intervalMs },
  });
  worker.on('message', (m: { error?: string; code?: unknown }) => {
    if (m.error === undefined) return;
    // The database file cannot grow: writes are about to fail, if they do not already (see /readyz).
    noteDatabaseFailure(Object.assign(new Error(m.error), { code: m.code }));
    options.onError?.(m.error);
  });
  // A thread that fails to start or dies only loses the help: the safety net still checkpoints.
  worker.on('error', (err) => options.onError?.(err.message));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.unref();
  let told = false;
  return {
    async stop(hold = true) {
      if (hold) worker.ref(); // keep the process alive until the thread has finished
      // Told once: a second message queued behind the first would checkpoint a closed database.
      if (!told) worker.postMessage('stop');
      told = true;
      await exited;
    },
  };
}
