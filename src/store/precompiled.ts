import {
  type Compilable,
  type CompiledQuery,
  type Kysely,
  type QueryResult,
  type Transaction,
  createQueryId,
  sql,
} from 'kysely';
import type { Database } from './schema.js';

/**
 * Queries on the request path, built and compiled by Kysely once per dialect instead of on every call
 * (building and compiling cost more than running such a query). The query is built with placeholder
 * values that become parameter slots; each call fills the slots and runs it through Kysely's
 * `executeQuery`, on the database or transaction it is given, so both engines work as before.
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

/** `db.transaction().execute(fn)`, with the transaction known to share db's dialect (no probe). */
export function transaction<T>(
  db: Kysely<Database>,
  fn: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  const dialect = dialectOf(db);
  return db.transaction().execute((trx) => {
    dialects.set(trx, dialect);
    return fn(trx);
  });
}
