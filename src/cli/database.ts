/**
 * Opening the database for a command: with the DATABASE_* settings, waiting for PostgreSQL at start
 * (serve, worker), and migrating over a connection of its own (docs/operating.md, "PostgreSQL").
 */
import type { MigrationResult } from 'kysely';
import type { Logger } from 'pino';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Config } from '../config.js';
import { type Store, type StoreOptions, isDatabaseUnavailable, openStore, pingStore } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';

import { DatabaseStartError } from './startError.js';
import { localeOf } from '../i18n/locale.js';

export { DatabaseStartError };

/** The PostgreSQL options every store of a command is opened with. */
export function storeOptions(config: Config): Pick<StoreOptions, 'caFile' | 'statementTimeoutMs'> {
  return { caFile: config.databaseCaFile, statementTimeoutMs: config.databaseStatementTimeoutMs };
}

/** The store of a long-running process (serve, worker): on SQLite, with its WAL checkpointed off-thread. */
export function openServerStore(config: Config, log: Pick<Logger, 'warn'>): Store {
  const store = openStore(config.databaseUrl, {
    ...storeOptions(config),
    poolSize: config.databasePoolSize,
    checkpointer: { onError: (error) => log.warn({ error }, 'SQLite WAL checkpoint failed') },
    listen: config.databaseListen,
    listenUrl: config.databaseDirectUrl,
  });
  if (store.changes !== null) {
    store.changes.onUnsupported = () =>
      log.warn(
        'PostgreSQL notices do not come back on one session (a pooler in transaction mode?): every request now checks keys and queues in the database; set DATABASE_DIRECT_URL to reach PostgreSQL itself, or DATABASE_LISTEN=false',
      );
  }
  return store;
}

/** Pause after the n-th failed attempt (from 1): 250 ms doubling, at most 5 s. */
export function retryDelayMs(attempt: number): number {
  return Math.min(5000, 250 * 2 ** (attempt - 1));
}

/** How long one attempt may take before it counts as failed (a host that drops packets never refuses). */
const ATTEMPT_TIMEOUT_MS = 5000;

class NoAnswer extends Error {
  override name = 'NoAnswer';
}

async function attempt(store: Store, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    const noAnswer = () => new NoAnswer(localeOf(null).t('cli.database.noAnswer', { ms: timeoutMs }));
    timer = setTimeout(() => reject(noAnswer()), timeoutMs);
  });
  try {
    await Promise.race([pingStore(store), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves once the database answers. While it cannot be reached (isDatabaseUnavailable, or no answer
 * in 5 s) it is tried again after retryDelayMs, with a warning, until `timeoutMs` has passed; then DatabaseStartError with
 * the last reason. Any other failure (a wrong password, TLS refused) is a DatabaseStartError at once.
 */
export async function waitForDatabase(
  store: Store,
  timeoutMs: number,
  log: Pick<Logger, 'warn'>,
): Promise<void> {
  const start = Date.now();
  for (let n = 1; ; n++) {
    const left = start + timeoutMs - Date.now();
    try {
      await attempt(store, Math.min(ATTEMPT_TIMEOUT_MS, Math.max(1000, left)));
      return;
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      if (!(err instanceof NoAnswer) && !isDatabaseUnavailable(err)) {
        const message = localeOf(null).t('cli.database.refused', { database: store.describe, reason });
        throw new DatabaseStartError(message, { cause: err });
      }
      const elapsed = Date.now() - start;
      // The last pause is cut short so that the last attempt is made at the end of the window.
      const pause = Math.min(retryDelayMs(n), timeoutMs - elapsed);
      if (pause <= 0) {
        const message = localeOf(null).t('cli.database.unreachable', {
          database: store.describe,
          reason,
          tried: timeoutMs === 0 ? 'no' : 'yes',
          attempts: n,
          seconds: (elapsed / 1000).toFixed(1),
          setting: `DATABASE_STARTUP_TIMEOUT_MS=${timeoutMs}`,
        });
        throw new DatabaseStartError(message, { cause: err });
      }
      log.warn({ attempt: n, retryInMs: pause, reason }, 'database unreachable; retrying');
      await sleep(pause);
    }
  }
}

/**
 * Brings the schema up to date. On PostgreSQL over a connection of its own, to DATABASE_DIRECT_URL when
 * set: Kysely's migration lock is a session's advisory lock, which PgBouncer in transaction mode would
 * leave on a server connection; and without the statement timeout, as an upgrade may index for minutes.
 */
export async function migrateDatabase(config: Config, store: Store): Promise<MigrationResult[]> {
  if (store.engine === 'sqlite') return migrateToLatest(store);
  const direct = openStore(config.databaseDirectUrl ?? config.databaseUrl, {
    ...storeOptions(config),
    poolSize: 1,
    statementTimeoutMs: 0,
  });
  try {
    return await migrateToLatest(direct);
  } finally {
    await direct.close();
  }
}

/** Opens a long-running process's store, waits for the database, migrates; closes it again on failure. */
export async function startServerStore(
  config: Config,
  log: Pick<Logger, 'warn'>,
): Promise<{
  store: Store;
  applied: MigrationResult[];
}> {
  const store = openServerStore(config, log);
  try {
    await waitForDatabase(store, config.databaseStartupTimeoutMs, log);
    return { store, applied: await migrateDatabase(config, store) };
  } catch (err) {
    await store.close();
    throw err;
  }
}
