/**
 * The SQLite side of openStore (db.ts): the database file and its folder made private, the statement
 * cache, whose statements store text without U+0000 (storableText.ts), and the dialect whose transactions
 * take the write lock when they begin.
 */
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  type SqliteDatabase,
  type SqliteStatement,
} from 'kysely';
import { storableParameters } from './storableText.js';

/** The data folder, as it is created: its owner's alone (what it holds is every account's data). */
export const PRIVATE_DIRECTORY_MODE = 0o700;
/** The database file (and so its -wal and -shm, which SQLite gives its mode) and backup copies. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates the database's folder (0700) and the file itself (0600, empty: SQLite makes it a database)
 * when either is missing, whatever the umask, so that no other local user can read them; SQLite would
 * create them 0755 and 0644 under the usual umask 022. What exists already is left as it is.
 */
export function createPrivately(file: string): void {
  mkdirSync(dirname(resolve(file)), { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  let fd: number;
  try {
    fd = openSync(file, 'wx', PRIVATE_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw err;
  }
  closeSync(fd);
}

/**
 * Every transaction begins IMMEDIATE: it takes the write lock at BEGIN, waiting up to the busy timeout
 * while another process (serve, a command) holds it. Kysely's driver begins DEFERRED, and a deferred
 * transaction that reads and then writes cannot wait: if another connection committed after its read,
 * SQLite answers SQLITE_BUSY ("database is locked") at once, without the busy timeout, so a command's
 * write failed whenever serve committed in between (docs/design/sqlite-transactions.md).
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

export class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
}

const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely's SQLite driver prepares every statement on every call; preparing costs about as much as
 * running a small query. This keeps the most recent prepared statements (SQLite re-prepares one by
 * itself if the schema changes under it). Safe because Kysely runs one statement at a time per
 * connection and Tidings never streams results. Each statement is given storable parameters
 * (storableText.ts): the one path of every statement on this connection, Kysely's and precompiled.ts's.
 */
export function withStatementCache(sqlite: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare: (text) => {
      let stmt = cache.get(text);
      if (stmt === undefined) {
        stmt = storing(sqlite.prepare(text));
        if (cache.size >= STATEMENT_CACHE_SIZE) {
          const oldest = cache.keys().next();
          if (oldest.done !== true) cache.delete(oldest.value);
        }
        cache.set(text, stmt);
      }
      return stmt;
    },
  };
}

function storing(stmt: SQLite.Statement): SqliteStatement {
  return {
    reader: stmt.reader,
    all: (parameters) => stmt.all(storableParameters(parameters)),
    run: (parameters) => stmt.run(storableParameters(parameters)),
    iterate: (parameters) => stmt.iterate(storableParameters(parameters)),
  };
}
