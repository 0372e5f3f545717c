import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from './schema.js';
import { searchHere } from './searchRead.js';
import type { SearchReply, SearchRequest } from './searchThread.js';

/**
 * The reader thread of searchThread.ts: a read-only connection to the SQLite file, on which each search
 * runs in one read transaction. 'close' closes the connection and ends the thread.
 */

const port = parentPort;
if (port === null) throw new Error('searchWorker.ts runs as a worker thread');
const { file } = workerData as { file: string };
const sqlite = new SQLite(file, { readonly: true, fileMustExist: true });
sqlite.pragma('busy_timeout = 5000');
const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });

port.on('message', (message: { id: number; request: SearchRequest } | 'close') => {
  if (message === 'close') {
    void db.destroy().finally(() => port.close());
    return;
  }
  const { id, request: r } = message;
  void db
    .transaction()
    .execute((trx) => searchHere(trx, 'sqlite', r.accountId, r.query, r.page))
    .then(
      (page): SearchReply => ({ id, page }),
      (err: unknown): SearchReply => ({
        id,
        error: {
          message: err instanceof Error ? err.message : String(err),
          code: err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined,
        },
      }),
    )
    .then((reply) => port.postMessage(reply));
});
