/**
 * A consistent copy of a live SQLite database (tidings backup; docs/operating.md, "Backups and restore"):
 * SQLite's online backup API, read in one snapshot while serve goes on writing, into a temporary file
 * beside the destination that is renamed into place only once complete.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  openSync,
  renameSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import SQLite from 'better-sqlite3';

export interface BackupResult {
  /** The destination's absolute path. */
  file: string;
  bytes: number;
  pages: number;
  /** A moment before the copy's snapshot: every commit made before it is in the copy. */
  startedAt: Date;
  durationMs: number;
}

export type BackupProblem =
  | { kind: 'no_database'; file: string }
  | { kind: 'exists'; file: string }
  | { kind: 'same_file'; file: string }
  | { kind: 'no_directory'; dir: string }
  /** SQLite refused: not a database, a corrupt one, the disk full… */
  | { kind: 'sqlite'; message: string };

export class BackupError extends Error {
  override name = 'BackupError';
  constructor(readonly problem: BackupProblem) {
    super(describeProblem(problem));
  }
}

function describeProblem(p: BackupProblem): string {
  switch (p.kind) {
    case 'no_database':
      return `there is no database at ${p.file}`;
    case 'exists':
      return `${p.file} exists; choose another name, or --force to replace it`;
    case 'same_file':
      return `${p.file} is the database itself; write the backup elsewhere`;
    case 'no_directory':
      return `the directory ${p.dir} does not exist`;
    case 'sqlite':
      return `SQLite could not make the copy: ${p.message}`;
  }
}

/** All the pages in one step: one read transaction, so the copy is one moment of the database. */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the SQLite database `source` to `destination`. A writer in another process (serve) goes on
 * meanwhile: in WAL mode a reader blocks no writer. Without `force` an existing destination is never
 * replaced, even one that appears while the copy is made (the rename is a link, which refuses).
 */
export async function backupSqlite(
  source: string,
  destination: string,
  opts: { force: boolean },
): Promise<BackupResult> {
  const started = performance.now();
  const from = resolve(source);
  const to = resolve(destination);
  if (!existsSync(from)) throw new BackupError({ kind: 'no_database', file: from });
  if (to === from) throw new BackupError({ kind: 'same_file', file: to });
  const dir = dirname(to);
  if (!existsSync(dir)) throw new BackupError({ kind: 'no_directory', dir });
  if (!opts.force && existsSync(to)) throw new BackupError({ kind: 'exists', file: to });

  const temp = join(dir, `.${basename(to)}.${randomBytes(6).toString('hex')}.tmp`);
  const db = new SQLite(from, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    const startedAt = new Date();
    const { totalPages } = await db.backup(temp, { progress: () => ALL_PAGES }).catch((err: unknown) => {
      if (err instanceof SQLite.SqliteError) throw new BackupError({ kind: 'sqlite', message: err.message });
      throw err;
    });
    syncFile(temp);
    if (opts.force) renameSync(temp, to);
    else {
      try {
        linkSync(temp, to);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EEXIST')
          throw new BackupError({ kind: 'exists', file: to });
        throw err;
      } finally {
        unlinkSync(temp);
      }
    }
    syncFile(dir);
    return {
      file: to,
      bytes: statSync(to).size,
      pages: totalPages,
      startedAt,
      durationMs: performance.now() - started,
    };
  } finally {
    db.close();
    if (existsSync(temp)) unlinkSync(temp);
  }
}

/** The copy and its name reach the disk before the command says it is done. */
function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
