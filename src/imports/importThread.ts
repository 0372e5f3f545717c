import type { Worker } from 'node:worker_threads';
import { type ErrorKind, type RefusalFacts, TidingsError } from '../errors.js';
import type { AccountId } from '../lib/authorized.js';
import { startThread } from '../lib/threads.js';
import { type Store, now } from '../store/db.js';
import { lazy } from '../lib/lazy.js';
import { IMPORT_BATCH, type ImportCounts } from './counts.js';
import { ImportTurns, type TurnLimits } from './importTurns.js';
import type { CleanLink } from './merge.js';
import type { ImportFormat } from './record.js';

/** The writer (and the merge and sanitiser it brings), loaded by the first upload: none at idle (issue 26). */
const importLinks = lazy(() => import('./importLinks.js'));

/** What the import thread says (imports/importWorker.ts). */
export type FromImportThread =
  | { kind: 'started' }
  | { kind: 'refused'; error: { kind: ErrorKind; message: string; facts: RefusalFacts | undefined } }
  | { kind: 'read'; counts: ImportCounts; links: number }
  | { kind: 'batch'; links: CleanLink[] };
/** What it is asked: the next links. */
export interface ToImportThread {
  batch: number;
}

export interface ImportThreadLimits extends TurnLimits {
  /** A thread's heap (old space), in MB: a file that needs more is refused, the server unharmed. */
  oldMb: number;
  /**
   * How long a thread may take, from its start, to read its file (parse it, check its links, sanitise its
   * HTML): past it the thread is ended and the file refused (`limit_reached`), so that no file can hold
   * the one place of every account's imports.
   */
  readMs: number;
  /**
   * How long an upload's file may take to arrive, from the start of its body: past it the web app stops
   * reading and answers with the page (http/web/exportUpload.ts). Kept here with the other limits of an
   * upload so that the tests can make it small.
   */
  uploadMs: number;
}

/**
 * Measured on the development machine (node --max-old-space-size, src/imports/prepare.ts alone): a 49.6 MB
 * Wallabag export of 5,000 entries of 10 KB of HTML is read in 6.3 s at 330 MB RSS; an Omnivore zip of
 * 2,400 pages of 100 KB (240 MB unzipped, near the 256 MB limit) in 70 s at 1.7 GB RSS, within a 1,024 MB
 * heap. A server is planned for 80 MiB idle (docs/operating.md) and often has 512 MB to 1 GB in all: an
 * upload must not be what the kernel's OOM killer ends the whole process for, so the thread's heap is held
 * to 384 MB (the 50 MB Wallabag export fits; the 240 MB Omnivore zip is refused with a pointer to
 * `tidings import`, which reads it in its own process). Two at once would take both cores of a small
 * server and twice the memory, so one runs and a few wait, at most two of them one account's.
 *
 * Time (issue 33 C): the largest files an upload takes are read in seconds (the 50 MB Wallabag export in
 * 5 s of CPU, at a lower priority than requests), so two minutes leaves room for a busy server while no
 * file holds the place longer. The upload itself must arrive within 30 s (about 14 Mbit/s for 50 MB; a
 * slower link imports with `tidings import` on the server).
 */
export const IMPORT_THREAD_LIMITS: ImportThreadLimits = {
  running: 1,
  waiting: 4,
  waitingPerAccount: 2,
  oldMb: 384,
  readMs: 120_000,
  uploadMs: 30_000,
};

/** What the tests are told: a thread started reading a file (it may hold it there), the number waiting. */
export interface ImportThreadHooks {
  parsing?: () => void | Promise<void>;
  waiting?: (waiting: number) => void;
}

/**
 * Imports of uploaded files for a server: each file is read in a worker thread (imports/importWorker.ts),
 * never on the thread that answers requests, so that a 50 MB export being parsed and sanitised does not
 * hold up anyone's page; its links are then written here in batches of 500, one transaction each, as
 * `tidings import` writes them. Whose upload is read next: imports/importTurns.ts.
 */
export class ImportThreads {
  private readonly turns: ImportTurns;
  /** Threads between 'started' and their file read (for the tests: is a file being parsed now?). */
  parsing = 0;

  constructor(
    readonly limits: ImportThreadLimits = IMPORT_THREAD_LIMITS,
    private readonly hooks: ImportThreadHooks = {},
  ) {
    this.turns = new ImportTurns(limits, hooks.waiting);
  }

  /**
   * Imports `bytes` into the account's reading list: the same counts, refusals and writes as
   * importReadingList. The bytes' buffer is handed to the thread (it is unusable here afterwards). An
   * upload whose `signal` is aborted while it waits its turn leaves the queue, rejected with the reason.
   */
  async importFile(
    store: Store,
    accountId: AccountId,
    bytes: Uint8Array,
    format: ImportFormat | 'auto',
    signal?: AbortSignal,
  ): Promise<ImportCounts> {
    await this.turns.take(accountId, signal);
    try {
      return await this.run(store, accountId, bytes, format);
    } finally {
      this.turns.done(accountId);
    }
  }

  private async run(
    store: Store,
    accountId: AccountId,
    bytes: Uint8Array,
    format: ImportFormat | 'auto',
  ): Promise<ImportCounts> {
    const at = now();
    // A buffer of its own is moved to the thread; a view into a larger one (a pool's) is copied first.
    const own =
      bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
    const worker = startThread(import.meta.url, 'importWorker', {
      workerData: { bytes: own, format, at },
      transferList: [own.buffer as ArrayBuffer],
      resourceLimits: { maxOldGenerationSizeMb: this.limits.oldMb },
    });
    const thread = new ThreadMessages(worker, this.limits.oldMb);
    // Enforced here, where the thread can be ended whatever it is doing (a parser's loop never yields).
    const overtime = setTimeout(() => {
      thread.stop(
        new TidingsError(
          'limit_reached',
          `reading this file took longer than ${this.limits.readMs / 1000} s, the most an import may take, and was stopped; split it and import each part, or import it on the server with tidings import`,
          { facts: { reason: 'import_too_slow', seconds: this.limits.readMs / 1000 } },
        ),
      );
    }, this.limits.readMs);
    let parsing = false;
    try {
      let msg = await thread.next();
      if (msg.kind === 'started') {
        parsing = true;
        this.parsing++;
        await this.hooks.parsing?.();
        msg = await thread.next();
      }
      clearTimeout(overtime);
      if (parsing) this.parsing--;
      parsing = false;
      if (msg.kind === 'refused') {
        throw new TidingsError(msg.error.kind, msg.error.message, { facts: msg.error.facts });
      }
      if (msg.kind !== 'read') throw new Error(`the import thread said ${msg.kind} first`);
      const written = { imported: 0, merged: 0 };
      for (let left = msg.links; left > 0; left -= IMPORT_BATCH) {
        worker.postMessage({ batch: IMPORT_BATCH } satisfies ToImportThread);
        const batch = await thread.next();
        if (batch.kind !== 'batch') throw new Error(`the import thread said ${batch.kind}, not a batch`);
        const { writeImportBatch } = await importLinks();
        const done = await writeImportBatch(store, accountId, msg.counts.format, batch.links, at);
        written.imported += done.imported;
        written.merged += done.merged;
      }
      return { ...msg.counts, ...written };
    } finally {
      clearTimeout(overtime);
      if (parsing) this.parsing--;
      await worker.terminate();
    }
  }
}

/** A thread's messages one at a time; its end (a crash, its heap full, stopped) as an error. */
class ThreadMessages {
  private readonly waiting: FromImportThread[] = [];
  private wanted: { resolve: (m: FromImportThread) => void; reject: (e: Error) => void } | null = null;
  private failure: Error | null = null;

  constructor(
    private readonly worker: Worker,
    oldMb: number,
  ) {
    worker.on('message', (msg: FromImportThread) => {
      if (this.wanted === null) this.waiting.push(msg);
      else this.take().resolve(msg);
    });
    const ended = (err: unknown): void => {
      if (this.failure !== null) return;
      const code = (err as { code?: unknown } | null)?.code;
      this.failure =
        code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new TidingsError(
              'limit_reached',
              `reading this file needs more memory than an import may use (${oldMb} MB); split it and import each part, or import it on the server with tidings import`,
              { facts: { reason: 'import_too_much_memory' } },
            )
          : new Error('the import thread ended before the file was read', { cause: err });
      if (this.wanted !== null) this.take().reject(this.failure);
    };
    worker.on('error', ended);
    worker.on('exit', ended);
  }

  /** Ends the thread; what is awaited, and any later message, is `reason`. */
  stop(reason: Error): void {
    if (this.failure !== null) return;
    this.failure = reason;
    this.waiting.length = 0;
    if (this.wanted !== null) this.take().reject(reason);
    void this.worker.terminate();
  }

  next(): Promise<FromImportThread> {
    const msg = this.waiting.shift();
    if (msg !== undefined) return Promise.resolve(msg);
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.wanted = { resolve, reject };
    });
  }

  private take(): { resolve: (m: FromImportThread) => void; reject: (e: Error) => void } {
    const wanted = this.wanted;
    if (wanted === null) throw new Error('no message awaited');
    this.wanted = null;
    return wanted;
  }
}
