import type { Logger } from 'pino';
import { type Config, loadConfig } from '../config.js';
import { TidingsError } from '../errors.js';
import { type Store, openStore } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';

/** What a command writes to; tests pass their own. */
export interface Io {
  out: (line: string) => void;
  err: (line: string) => void;
  env: NodeJS.ProcessEnv;
}

export const processIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
};

/** A failure the user can fix; main prints its message alone and exits with `exitCode`. */
export class UsageError extends Error {
  override name = 'UsageError';
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** The store of a long-running process (serve, worker): on SQLite, with its WAL checkpointed off-thread. */
export function openServerStore(config: Config, log: Pick<Logger, 'warn'>): Store {
  const store = openStore(config.databaseUrl, {
    checkpointer: { onError: (error) => log.warn({ error }, 'SQLite WAL checkpoint failed') },
    listen: config.databaseListen,
  });
  if (store.changes !== null) {
    store.changes.onUnsupported = () =>
      log.warn(
        'PostgreSQL notices do not come back on one session (a pooler in transaction mode?): every request now checks keys and queues in the database; set DATABASE_LISTEN=false to say so',
      );
  }
  return store;
}

/** Runs a command against an up-to-date database and always closes it. */
export async function withStore<T>(io: Io, fn: (store: Store, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig(io.env);
  const store = openStore(config.databaseUrl, { poolSize: 2 });
  try {
    await migrateToLatest(store);
    return await fn(store, config);
  } finally {
    await store.close();
  }
}

export function parseId(value: string, what: string): number {
  if (!/^\d{1,15}$/.test(value))
    throw new UsageError(`${what} must be a positive whole number, not "${value}"`, 2);
  return Number(value);
}

/** The two ready-to-paste curl lines for a key. */
export function curlLines(baseUrl: string, apiKey: string): string[] {
  return [
    `  curl -X POST '${baseUrl}/api/v1/articles?apiKey=${apiKey}' -d url=https://example.com/`,
    `  curl -X POST '${baseUrl}/api?api_key=${apiKey}' -d url=https://example.com/`,
  ];
}

/** What a service returned for an account the operator named, or not_found when it went away meanwhile. */
export function orGone<T>(value: T | null, accountId: number): T {
  if (value === null) throw new TidingsError('not_found', `no account ${accountId}`);
  return value;
}
