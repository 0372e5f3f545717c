import { createRequire } from 'node:module';
import type * as PgModule from 'pg';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { parseDatabaseUrl } from '../lib/databaseUrl.js';
import { pgPoolConfig } from '../lib/pgConfig.js';
import { redactUrl } from '../lib/redact.js';
import { ChangeFeed, type ChangeFeedTimings } from './changeFeed.js';
import { type Checkpointer, type CheckpointerOptions, startCheckpointer } from './checkpointer.js';
import { registerSqliteHandle } from './precompiled.js';
import { ImmediateSqliteDialect, createPrivately, withStatementCache } from './sqlite.js';
import type { Database } from './schema.js';
import type { PoolStats } from '../lib/metrics.js';
import { trackingPool } from './writeTracking.js';

export { isDatabaseUnavailable, isDiskFull, noteDatabaseFailure } from './unavailable.js';
export { checkWrites } from './writeProbe.js';
export { BackupError, type BackupResult, backupProblemWords, backupSqlite } from './backup.js';
export { type DatabaseTarget, parseDatabaseUrl } from '../lib/databaseUrl.js';

export type Engine = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  engine: Engine;
  /** Where the data lives, fit for logs: a file path, or the URL with its secrets redacted (lib/redact.ts). */
  describe: string;
  /** The connection pool as it stands (PostgreSQL); null on SQLite, whose one connection has no pool. */
  poolStats(): PoolStats | null;
  /**
   * PostgreSQL: what tells this instance that a cached key or queue version changed (changeFeed.ts); null
   * on SQLite, where nothing of the kind is cached.
   */
  changes: ChangeFeed | null;
  close(): Promise<void>;
}

type Pg = typeof PgModule;
let pgModule: Pg | undefined;

/**
 * pg, loaded when the first PostgreSQL store opens: a process on SQLite never loads it (about 10 MB of
 * memory). PostgreSQL returns bigint (count(*), sums) as strings by default; every such value here fits a
 * JS number, so they are read as numbers.
 */
function loadPg(): Pg {
  if (pgModule === undefined) {
    pgModule = createRequire(import.meta.url)('pg') as Pg;
    pgModule.types.setTypeParser(pgModule.types.builtins.INT8, (v) => Number(v));
  }
  return pgModule;
}

export interface StoreOptions {
  /** PostgreSQL pool size (10; DATABASE_POOL_SIZE for serve and worker). */
  poolSize?: number;
  /** PostgreSQL: the CA file that signs the server's certificate (DATABASE_CA_FILE); see lib/pgConfig.ts. */
  caFile?: string | null;
  /** PostgreSQL: each session's statement_timeout in ms (DATABASE_STATEMENT_TIMEOUT_MS); 0 or unset: none. */
  statementTimeoutMs?: number;
  /**
   * For long-running processes on an SQLite file: checkpoint the write-ahead log from a thread of its own
   * (see checkpointer.ts), called with a message when a checkpoint fails.
   */
  checkpointer?: CheckpointerOptions;
  /** PostgreSQL: the cache's lease, heartbeat and reconnection backoff (changeFeed.ts has the defaults). */
  changeFeed?: Partial<ChangeFeedTimings>;
  /** PostgreSQL: false to cache nothing and make every check a round trip (`changes` is null). True. */
  listen?: boolean;
  /**
   * PostgreSQL: where the listener connects when it must not go through the pool's address (PgBouncer in
   * transaction mode keeps no session for LISTEN): DATABASE_DIRECT_URL. Unset: as the pool's connections.
   */
  listenUrl?: string | null;
}

/** Pages (4 KiB) of write-ahead log after which a commit checkpoints by itself when a checkpointer runs. */
const SAFETY_NET_PAGES = 10_000;

export function openStore(databaseUrl: string, options: StoreOptions = {}): Store {
  const target = parseDatabaseUrl(databaseUrl);
  if (target.engine === 'sqlite') {
    if (target.file !== ':memory:') createPrivately(target.file);
    const sqlite = new SQLite(target.file);
    sqlite.pragma('journal_mode = WAL');
    // NORMAL in WAL mode: a committed transaction survives a process crash (it is in the OS's hands);
    // only a power loss can take the last few back.
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    const cached = withStatementCache(sqlite);
    const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: cached }) });
    registerSqliteHandle(db, {
      prepare: (text) => cached.prepare(text),
      get inTransaction() {
        return sqlite.inTransaction;
      },
    });
    let checkpointer: Checkpointer | null = null;
    if (options.checkpointer !== undefined && target.file !== ':memory:') {
      sqlite.pragma(`wal_autocheckpoint = ${SAFETY_NET_PAGES}`);
      // After a burst, the log file is cut back to this size at the next reset.
      sqlite.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
      // This connection's row changes and data_version (other connections' commits): either moves on
      // every commit, so the checkpointer knows when the database is idle.
      const version = sqlite.prepare(
        'select total_changes() as own, data_version as others from pragma_data_version',
      );
      const changes = (): string => {
        try {
          const row = version.get() as { own: number; others: number };
          return `${row.own}:${row.others}`;
        } catch {
          return String(Date.now()); // unknown: taken as a change
        }
      };
      checkpointer = startCheckpointer(target.file, changes, options.checkpointer);
    }
    return {
      db,
      engine: 'sqlite',
      describe: redactUrl(target.file),
      poolStats: () => null,
      changes: null,
      close: async () => {
        await checkpointer?.stop();
        await db.destroy();
      },
    };
  }
  const pool = new (loadPg().Pool)(
    pgPoolConfig(target.url, {
      poolSize: options.poolSize ?? 10,
      caFile: options.caFile,
      statementTimeoutMs: options.statementTimeoutMs,
    }),
  );
  // A client that loses its connection must not crash the process: an idle one is reported by the pool,
  // one checked out (mid-transaction in a worker) by the client itself; either way the query in flight,
  // or the next one, fails with the error instead.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  // The cache's listener connects like the pool's connections, but is not one of them.
  const changes =
    options.listen === false
      ? null
      : new ChangeFeed(
          () =>
            new (loadPg().Client)({
              ...(options.listenUrl == null
                ? pool.options
                : pgPoolConfig(options.listenUrl, {
                    poolSize: 1,
                    caFile: options.caFile,
                    statementTimeoutMs: 0,
                  })),
              application_name: 'tidings-changes',
            }),
          options.changeFeed,
        );
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({
      // Always wrapped: the saves' call is named there whether or not a change feed hears of writes.
      pool: trackingPool(pool, (kind) => changes?.noteLocalWrite(kind)),
    }),
  });
  return {
    db,
    engine: 'postgres',
    describe: redactUrl(target.url),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    changes,
    close: async () => {
      await changes?.close();
      await db.destroy();
    },
  };
}

export async function pingStore(store: Store): Promise<void> {
  await sql`select 1`.execute(store.db);
}

export const now = (): string => new Date().toISOString();
