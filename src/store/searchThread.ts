import type { Worker } from 'node:worker_threads';
import { type Kysely, sql } from 'kysely';
import type { SearchQuery } from '../lib/searchQuery.js';
import { startThread } from '../lib/threads.js';
import type { Database } from './schema.js';
import { type SearchPage, searchHere } from './searchRead.js';

/**
 * Searches of an SQLite file run in a thread of their own, on a read-only connection of that thread
 * (searchWorker.ts), so that the event loop goes on answering while a search reads however many hits:
 * better-sqlite3 is synchronous, and on the main connection a query over 10,000 hits held every other
 * request for as long as it ran (0.2-0.6 s; issue 25, F5). One thread per open database (per Kysely
 * instance), started at its first search and ended after IDLE_MS without one; it keeps the process alive
 * only while a search is under way. The main connection commits its indexing before it asks, and the
 * thread reads each search in one read transaction: it sees everything committed before, and one state.
 *
 * A thread that dies (it could not open the file, say) takes nothing with it: its searches run on the
 * main connection, as before threads, and after MAX_DEATHS deaths every search of that database does.
 * An error of the search itself (SQLITE_BUSY, say) comes back with its code, as it would have been thrown
 * here.
 */

export interface SearchRequest {
  accountId: number;
  query: SearchQuery;
  page: { limit: number; offset: number; rankedHits?: number };
}

export type SearchReply =
  { id: number; page: SearchPage } | { id: number; error: { message: string; code: string | undefined } };

/** How long a reader thread waits for the next search before it ends. */
const IDLE_MS = 30_000;
const MAX_DEATHS = 3;

interface Asked {
  request: SearchRequest;
  resolve: (page: SearchPage) => void;
  reject: (err: Error) => void;
}

interface Reader {
  worker: Worker;
  pending: Map<number, Asked>;
  idle: NodeJS.Timeout | undefined;
}

interface Handle {
  /** The database's file; null for one in memory (or a temporary one), which no other connection sees. */
  file: string | null;
  reader: Reader | null;
  deaths: number;
  /** Pages a reader thread has answered: how a test knows a search left the event loop. */
  answered: number;
}

const handles = new WeakMap<Kysely<Database>, Handle>();
let nextId = 0;

/** The SQLite database's file, as the main connection opened it; null in memory. Asked once per database. */
export async function sqliteFileOf(db: Kysely<Database>): Promise<string | null> {
  const known = handles.get(db);
  if (known !== undefined) return known.file;
  const { rows } = await sql<{ file: string }>`select file from pragma_database_list
    where name = 'main'`.execute(db);
  const file = rows[0]?.file ?? '';
  const handle: Handle = { file: file === '' ? null : file, reader: null, deaths: 0, answered: 0 };
  handles.set(db, handle);
  return handle.file;
}

/** How many pages the database's reader threads have answered (0 before its first search). */
export const pagesReadInThread = (db: Kysely<Database>): number => handles.get(db)?.answered ?? 0;

/** One page of hits, read by the database's reader thread (see above). */
export function searchInThread(
  db: Kysely<Database>,
  file: string,
  request: SearchRequest,
): Promise<SearchPage> {
  const handle = handles.get(db);
  if (handle === undefined || handle.deaths >= MAX_DEATHS) {
    return searchHere(db, 'sqlite', request.accountId, request.query, request.page);
  }
  const reader = (handle.reader ??= startReader(db, handle, file));
  clearTimeout(reader.idle);
  reader.worker.ref();
  const id = nextId++;
  return new Promise<SearchPage>((resolve, reject) => {
    reader.pending.set(id, { request, resolve, reject });
    reader.worker.postMessage({ id, request });
  });
}

function startReader(db: Kysely<Database>, handle: Handle, file: string): Reader {
  const worker = startThread(import.meta.url, 'searchWorker', { workerData: { file } });
  const reader: Reader = { worker, pending: new Map(), idle: undefined };
  const settled = (): void => {
    if (reader.pending.size > 0) return;
    worker.unref();
    reader.idle = setTimeout(() => {
      if (handle.reader === reader) handle.reader = null;
      worker.postMessage('close');
    }, IDLE_MS);
    reader.idle.unref();
  };
  worker.on('message', (reply: SearchReply) => {
    const asked = reader.pending.get(reply.id);
    if (asked === undefined) return;
    reader.pending.delete(reply.id);
    if ('page' in reply) {
      handle.answered++;
      asked.resolve(reply.page);
    } else asked.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
    settled();
  });
  const died = (): void => {
    clearTimeout(reader.idle);
    if (handle.reader !== reader) return; // closed when idle, or already counted ('error', then 'exit')
    handle.reader = null;
    handle.deaths++;
    const left = [...reader.pending.values()];
    reader.pending.clear();
    for (const { request: r, resolve, reject } of left) {
      searchHere(db, 'sqlite', r.accountId, r.query, r.page).then(resolve, reject);
    }
  };
  worker.on('error', died);
  worker.on('exit', died);
  return reader;
}
