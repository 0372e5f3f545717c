import {
  type Compilable,
  type CompiledQuery,
  type Kysely,
  type QueryResult,
  type SqliteStatement,
  createQueryId,
  sql,
} from 'kysely';
import type { Database } from './schema.js';

/**
 * Queries on the request path, built and compiled by Kysely once per dialect instead of on every call
 * (building and compiling cost more than running such a query). The query is built with placeholder
 * values that become parameter slots; each call fills the slots and runs it through Kysely's
 * `executeQuery`, on the database or transaction it is given, so both engines work as before.
 *
 * On SQLite, inside `transaction` or `exclusive` below, a precompiled query skips Kysely's executor
 * altogether and runs its prepared statement directly (better-sqlite3 is synchronous; Kysely's
 * per-statement promise machinery costs more than the statement).
 */
export type Precompiled<P, R> = (db: Kysely<Database>, params: P) => Promise<QueryResult<R>>;

/** Prefix of a placeholder value. Only ever compared while compiling, never with a caller's value. */
const MARK = '\u0000tidings-param:';

type Slot = { param: string } | { value: unknown };

interface Compiled {
  sql: string;
  query: CompiledQuery['query'];
  slots: Slot[];
}

/**
 * `build` must use each of its parameters as a plain value (`where('id', '=', p.id)`, `values({...})`),
 * never compute with one or inline it: that is checked when the query is first compiled.
 */
export function precompile<P extends Record<string, unknown>, R>(
  build: (db: Kysely<Database>, p: P) => Compilable<R>,
): Precompiled<P, R> {
  const byDialect = new Map<string, Compiled>();
  return (db, params) => {
    const dialect = dialectOf(db);
    let compiled = byDialect.get(dialect);
    if (compiled === undefined) {
      compiled = compile(db, build);
      byDialect.set(dialect, compiled);
    }
    const parameters = compiled.slots.map((s) => ('param' in s ? params[s.param] : s.value));
    const direct = heldSqlite.get(db);
    if (direct !== undefined) return Promise.resolve(runDirect<R>(direct, compiled.sql, parameters));
    return db.executeQuery<R>({
      sql: compiled.sql,
      query: compiled.query,
      parameters,
      queryId: createQueryId(),
    });
  };
}

function compile(db: Kysely<Database>, build: (db: Kysely<Database>, p: never) => Compilable): Compiled {
  const used = new Set<string>();
  const placeholders = new Proxy(
    {},
    {
      get: (_target, name) => {
        if (typeof name !== 'string') return undefined;
        used.add(name);
        return MARK + name;
      },
    },
  ) as never;
  const query = build(db, placeholders).compile();
  if (query.sql.includes(MARK)) throw new Error(`a parameter was inlined into the SQL: ${query.sql}`);
  const slots = query.parameters.map((v): Slot =>
    typeof v === 'string' && v.startsWith(MARK) ? { param: v.slice(MARK.length) } : { value: v },
  );
  for (const name of used) {
    if (!slots.some((s) => 'param' in s && s.param === name)) {
      throw new Error(`parameter ${name} is not a plain value in: ${query.sql}`);
    }
  }
  return { sql: query.sql, query: query.query, slots };
}

/**
 * What tells one dialect's SQL from another's (placeholder and quoting style), remembered per instance.
 * Probing costs a query compilation, so transactions on the hot path use `transaction` below.
 */
const dialects = new WeakMap<Kysely<Database>, string>();

function dialectOf(db: Kysely<Database>): string {
  let dialect = dialects.get(db);
  if (dialect === undefined) {
    dialect = sql`${sql.ref('t.c')} = ${0}`.compile(db).sql;
    dialects.set(db, dialect);
  }
  return dialect;
}

/** What of a better-sqlite3 database runs statements directly (db.ts adds a statement cache). */
export interface SqliteHandle {
  prepare(sql: string): SqliteStatement;
  readonly inTransaction: boolean;
}

/** The raw handle behind each SQLite store's Kysely instance (registered by openStore). */
const sqliteHandles = new WeakMap<Kysely<Database>, SqliteHandle>();
/** Kysely instances bound to a held SQLite connection, on which precompiled queries run directly. */
const heldSqlite = new WeakMap<Kysely<Database>, SqliteHandle>();

export function registerSqliteHandle(db: Kysely<Database>, handle: SqliteHandle): void {
  sqliteHandles.set(db, handle);
}

function runDirect<R>(handle: SqliteHandle, text: string, parameters: readonly unknown[]): QueryResult<R> {
  const stmt = handle.prepare(text);
  if (stmt.reader) return { rows: stmt.all(parameters) as R[] };
  stmt.run(parameters);
  return { rows: [] };
}

/**
 * Runs fn with the database to itself: on SQLite, with Kysely's one connection held (so no other
 * query or transaction of this process can interleave) and precompiled queries run directly; on
 * PostgreSQL, plainly on db. fn must not wait for anything but its own queries.
 */
export function exclusive<T>(db: Kysely<Database>, fn: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  const handle = sqliteHandles.get(db);
  if (handle === undefined) return fn(db);
  const dialect = dialectOf(db);
  return db.connection().execute((conn) => {
    dialects.set(conn, dialect);
    heldSqlite.set(conn, handle);
    return fn(conn);
  });
}

/**
 * `db.transaction().execute(fn)`, with the transaction known to share db's dialect (no probe). On
 * SQLite, `exclusive` plus BEGIN IMMEDIATE … COMMIT run directly: the write lock is taken up front, and
 * the precompiled queries inside skip Kysely's executor.
 */
export function transaction<T>(db: Kysely<Database>, fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
  const handle = sqliteHandles.get(db);
  if (handle !== undefined) {
    return exclusive(db, async (conn) => {
      runDirect(handle, 'begin immediate', []);
      try {
        const result = await fn(conn);
        runDirect(handle, 'commit', []);
        return result;
      } catch (err) {
        // SQLite may already have rolled back by itself (a full disk, an interrupted statement).
        if (handle.inTransaction) runDirect(handle, 'rollback', []);
        throw err;
      }
    });
  }
  const dialect = dialectOf(db);
  return db.transaction().execute((trx) => {
    dialects.set(trx, dialect);
    return fn(trx);
  });
}
