/**
 * The SQLite side of openStore (db.ts): the statement cache, whose statements store text without U+0000
 * (storableText.ts), and the dialect whose transactions take the write lock when they begin.
 */
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
