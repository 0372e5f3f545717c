/**
 * The one rule that tells a database that cannot be reached just now (try again shortly) from a bug. The
 * transports answer the first with 503 and Retry-After (API), or the web's "unavailable" page.
 */

/**
 * PostgreSQL SQLSTATEs besides class 08 (connection_exception and its subclasses) and class 53
 * (insufficient_resources: 53000, 53100 disk full, 53200 out of memory, 53300 too many connections, 53400 a
 * configured limit), each a state of the server that passes, not a fault of the statement.
 */
const UNAVAILABLE_SQLSTATES = new Set([
  '3D000', // the database does not exist (dropped, or not created yet)
  '57P01', // admin shutdown (pg_terminate_backend, a server shutting down)
  '57P02', // crash shutdown
  '57P03', // cannot connect now (starting up, recovering)
  '57P04', // the database was dropped
]);

/** The socket errors of a connection to the database server (with a `syscall`: connect, read, write…). */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * What node-postgres (pg, pg-pool) throws, without a code, when a connection is lost or cannot be made:
 * the connection cut mid-query, a query on a client whose connection already failed, a connection that
 * did not come up in time.
 */
const PG_CONNECTION_MESSAGES = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  'timeout expired',
  'Query read timeout',
]);

/**
 * Whether an error says the database cannot be reached or cannot write just now: a PostgreSQL connection
 * lost, refused or shut down (a SQLSTATE of class 08, 57P01–57P04, 3D000; a socket error of the
 * connection; pg's own messages for a lost connection, which carry no code), PostgreSQL short of a
 * resource (class 53: its disk full, its memory, its connections), SQLite busy past its timeout, or
 * SQLite's disk full (SQLITE_FULL). Node's ECONNRESET for a client that closed its HTTP request has no
 * `syscall`, and is not one of these.
 */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 3) return false;
  if (err instanceof AggregateError && err.errors.length > 0) {
    return err.errors.every((inner) => isDatabaseUnavailable(inner, depth + 1));
  }
  const code = 'code' in err && typeof err.code === 'string' ? err.code : undefined;
  if (code === undefined) {
    return PG_CONNECTION_MESSAGES.has(err.message) || isDatabaseUnavailable(err.cause, depth + 1);
  }
  if (code.startsWith('SQLITE_BUSY') || code === 'SQLITE_FULL') return true;
  if (/^(08|53)[0-9A-Z]{3}$/.test(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
  return SOCKET_CODES.has(code) && 'syscall' in err && typeof err.syscall === 'string';
}

/** The codes that say the database's disk is full: SQLite's SQLITE_FULL, PostgreSQL's 53100 disk_full. */
const DISK_FULL_CODES = new Set(['SQLITE_FULL', '53100']);

/** Whether an error (or its cause, or every error of an AggregateError) says the database's disk is full. */
export function isDiskFull(err: unknown, depth = 0): boolean {
  if (!(err instanceof Error) || depth > 3) return false;
  if (err instanceof AggregateError && err.errors.length > 0) {
    return err.errors.every((inner) => isDiskFull(inner, depth + 1));
  }
  const code = 'code' in err && typeof err.code === 'string' ? err.code : undefined;
  return code === undefined ? isDiskFull(err.cause, depth + 1) : DISK_FULL_CODES.has(code);
}

/**
 * When this process last saw a write fail for want of disk space (a request's error, the checkpointer's),
 * until a probe of /readyz shows writes going through again (writeProbe.ts). One database per process:
 * the mark is the process's.
 */
let diskFullSince: number | null = null;

/** Marks writes as failing when `err` says the disk is full; any other error changes nothing. */
export function noteDatabaseFailure(err: unknown): void {
  if (isDiskFull(err)) diskFullSince ??= Date.now();
}

/** When writes were first seen failing for want of disk space, since they last went through; else null. */
export const writesFailingSince = (): number | null => diskFullSince;

/** Writes go through again (a probe write succeeded with room to spare). */
export function noteWritesResumed(): void {
  diskFullSince = null;
}
