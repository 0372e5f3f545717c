/**
 * A consistent copy of a live SQLite database (tidings backup; docs/operating.md, "Backups and restore"):
 * SQLite's online backup API, read in one snapshot while serve goes on writing, into a temporary file
 * beside the destination that is renamed into place only once complete.
 */
import { randomBytes } from 'node:crypto';
import {
  type Stats,
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  lstatSync,
  openSync,
  realpathSync,
  renameSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { ENGLISH, type Locale } from '../i18n/locale.js';
import { PRIVATE_FILE_MODE } from './sqlite.js';

export interface BackupResult {
  /** The destination's absolute path. */
  file: string;
  bytes: number;
  pages: number;
  /** A moment before the copy's snapshot: every commit made before it is in the copy. */
  startedAt: Date;
  durationMs: number;
}

/** The files of a live database: the database and those SQLite keeps beside it, by their suffix. */
const DATABASE_FILES = [
  ['', 'database'],
  ['-wal', 'wal'],
  ['-shm', 'shm'],
  ['-journal', 'journal'],
] as const;

export type DatabaseFileRole = (typeof DATABASE_FILES)[number][1];

export type BackupProblem =
  | { kind: 'no_database'; file: string }
  | { kind: 'exists'; file: string }
  /** FILE is the database or a file of it, by name or (a hard or symbolic link) by device and inode. */
  | { kind: 'same_file'; file: string; role: DatabaseFileRole }
  /** FILE exists and is no regular file: a directory, a device, a FIFO, a socket, a symbolic link. */
  | { kind: 'not_regular'; file: string; what: NotRegular }
  | { kind: 'no_directory'; dir: string }
  | { kind: 'not_directory'; dir: string }
  /** SQLite refused: not a database, a corrupt one, the disk full… */
  | { kind: 'sqlite'; message: string };

type NotRegular = 'directory' | 'symlink' | 'char_device' | 'block_device' | 'fifo' | 'socket' | 'other';

/** The message is English (a log's, a test's); the CLI words `problem` in the operator's language. */
export class BackupError extends Error {
  override name = 'BackupError';
  constructor(readonly problem: BackupProblem) {
    super(backupProblemWords(problem, ENGLISH));
  }
}

/** A refused backup in a language's words (`cli.backup.problem.*`). */
export function backupProblemWords(p: BackupProblem, locale: Locale): string {
  switch (p.kind) {
    case 'no_database':
    case 'exists':
      return locale.t(`cli.backup.problem.${p.kind}`, { file: p.file });
    case 'same_file':
      return locale.t('cli.backup.problem.same_file', { file: p.file, role: p.role });
    case 'not_regular':
      return locale.t('cli.backup.problem.not_regular', { file: p.file, what: p.what });
    case 'no_directory':
    case 'not_directory':
      return locale.t(`cli.backup.problem.${p.kind}`, { dir: p.dir });
    case 'sqlite':
      return locale.t('cli.backup.problem.sqlite', { message: p.message });
  }
}

/** All the pages in one step: one read transaction, so the copy is one moment of the database. */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the SQLite database `source` to `destination`. A writer in another process (serve) goes on
 * meanwhile: in WAL mode a reader blocks no writer. Without `force` an existing destination is never
 * replaced, even one that appears while the copy is made (the rename is a link, which refuses). Never,
 * even with `force`, is the destination the database or one of its files (checkDestination), and the
 * copy is its owner's alone (0600), whatever the umask.
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
  const { dir, target } = checkDestination(from, to, opts.force);

  const temp = join(dir, `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  closeSync(openSync(temp, 'wx', PRIVATE_FILE_MODE)); // SQLite writes the copy into this empty file
  let db: SQLite.Database | undefined;
  try {
    db = new SQLite(from, { fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    const startedAt = new Date();
    const { totalPages } = await db.backup(temp, { progress: () => ALL_PAGES }).catch((err: unknown) => {
      if (err instanceof SQLite.SqliteError) throw new BackupError({ kind: 'sqlite', message: err.message });
      throw err;
    });
    syncFile(temp);
    if (opts.force) renameSync(temp, target);
    else {
      try {
        linkSync(temp, target);
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
      bytes: statSync(target).size,
      pages: totalPages,
      startedAt,
      durationMs: performance.now() - started,
    };
  } finally {
    db?.close();
    if (existsSync(temp)) unlinkSync(temp);
  }
}

/**
 * Where the copy goes, refused when it would replace the live database: the destination's folder with
 * its links resolved (`dir`) and the destination in it (`target`). Refused: the database, its -wal,
 * -shm or -journal, by name (the folders' links resolved, so `alias/tidings.db` for a linked `data/`)
 * or by device and inode (a hard link, a symbolic link to one of them); then anything there that is not
 * a regular file (renaming over a directory or a device would fail, or replace /dev/null); then, without
 * `force`, any file there.
 */
function checkDestination(from: string, to: string, force: boolean): { dir: string; target: string } {
  const dir = realDirectory(dirname(to));
  const target = join(dir, basename(to));
  const database = realpathSync(from);
  const named = new Map<string, DatabaseFileRole>();
  for (const base of [from, database, join(realpathSync(dirname(from)), basename(from))]) {
    for (const [suffix, role] of DATABASE_FILES) named.set(base + suffix, role);
  }
  const byName = named.get(target);
  if (byName !== undefined) throw new BackupError({ kind: 'same_file', file: to, role: byName });
  const found = lstatOrNull(target);
  if (found === null) return { dir, target };
  const followed = found.isSymbolicLink() ? statOrNull(target) : found;
  if (followed !== null) {
    const role =
      named.get(realpathSync(target)) ??
      DATABASE_FILES.find(([suffix]) => sameFile(statOrNull(database + suffix), followed))?.[1];
    if (role !== undefined) throw new BackupError({ kind: 'same_file', file: to, role });
  }
  const what = notRegular(found);
  if (what !== null) throw new BackupError({ kind: 'not_regular', file: to, what });
  if (!force) throw new BackupError({ kind: 'exists', file: to });
  return { dir, target };
}

/** `dir` with its links resolved, refused when missing or not a directory. */
function realDirectory(dir: string): string {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new BackupError({ kind: 'no_directory', dir });
    if (code === 'ENOTDIR') throw new BackupError({ kind: 'not_directory', dir });
    throw err;
  }
  if (!statSync(real).isDirectory()) throw new BackupError({ kind: 'not_directory', dir });
  return real;
}

function lstatOrNull(path: string): Stats | null {
  return lstatSync(path, { throwIfNoEntry: false }) ?? null;
}

/** What a path leads to, or null when nothing (a missing file, a dangling link). */
function statOrNull(path: string): Stats | null {
  try {
    return statSync(path, { throwIfNoEntry: false }) ?? null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') return null;
    throw err;
  }
}

function sameFile(a: Stats | null, b: Stats): boolean {
  return a !== null && a.dev === b.dev && a.ino === b.ino;
}

/** What a file that exists is when it is not a regular file; null for a regular file. */
function notRegular(st: Stats): NotRegular | null {
  if (st.isFile()) return null;
  if (st.isDirectory()) return 'directory';
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isCharacterDevice()) return 'char_device';
  if (st.isBlockDevice()) return 'block_device';
  if (st.isFIFO()) return 'fifo';
  if (st.isSocket()) return 'socket';
  return 'other';
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
