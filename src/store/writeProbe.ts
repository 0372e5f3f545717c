import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type Kysely, sql } from 'kysely';
import type { Engine } from './db.js';
import type { Database } from './schema.js';
import { noteWritesResumed, writesFailingSince } from './unavailable.js';

/**
 * Readiness's part about writes (issue 25, F6). A full disk does not stop reads, so `select 1` goes on
 * answering while every save fails; once a write of this process has failed for want of space
 * (unavailable.ts noteDatabaseFailure), /readyz asks this instead, until writes go through again:
 *
 * - SQLite: the filesystem of the database file has MIN_FREE_BYTES free (statfs). A small write can go
 *   through on a full disk by reusing the write-ahead log's space while the saves that need more fail, so
 *   a write alone would say "ready" too soon.
 * - Both: a write succeeds, an upsert of one row of `meta` (key WRITE_PROBE_KEY, the time).
 *
 * When both hold, the mark is cleared and readiness is the database answering again. The writes resume by
 * themselves: nothing else is kept from them (the checkpointer retries every second and copies the log
 * back once the database file can grow).
 */

/** Free space an SQLite database's filesystem needs before writes count as going through again. */
export const MIN_FREE_BYTES = 1024 * 1024;
export const WRITE_PROBE_KEY = 'write_probe';

/** Thrown when writes still fail for want of space, with what was seen. */
export class DiskFullError extends Error {
  override name = 'DiskFullError';
  readonly code = 'SQLITE_FULL';
}

/** Resolves when writes are not known to fail (or go through again); rejects while they do. */
export async function checkWrites(db: Kysely<Database>, engine: Engine): Promise<void> {
  if (writesFailingSince() === null) return;
  if (engine === 'sqlite') {
    const { rows } = await sql<{ file: string }>`select file from pragma_database_list
      where name = 'main'`.execute(db);
    const file = rows[0]?.file ?? '';
    if (file !== '') {
      const fs = await statfs(dirname(file));
      const free = fs.bavail * fs.bsize;
      if (free < MIN_FREE_BYTES) {
        throw new DiskFullError(
          `the database's filesystem has ${Math.floor(free / 1024)} KiB free (${MIN_FREE_BYTES / 1024} KiB needed)`,
        );
      }
    }
  }
  await db
    .insertInto('meta')
    .values({ key: WRITE_PROBE_KEY, value: new Date().toISOString() })
    .onConflict((oc) => oc.column('key').doUpdateSet((eb) => ({ value: eb.ref('excluded.value') })))
    .execute();
  noteWritesResumed();
}
