import type * as PgModule from 'pg';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type { WriteKind } from './changeFeed.js';

/**
 * The PostgreSQL pool Kysely is given, with one addition: `onWrite` is called each time a connection that
 * ran anything but a plain read goes back to the pool, i.e. after the write (or the transaction around it)
 * has committed or rolled back. It tells this instance's cache (changeFeed.ts) that its own change may
 * not have been notified to it yet, whatever the code that wrote: no writer has to remember to call it.
 *
 * A plain read is a statement that PostgreSQL answers as SELECT, whose text starts with `select` and does
 * not name a function of Tidings' own (`tidings_…`, which may write). So `with … update`, BEGIN/COMMIT and
 * such a call count as writes; erring that way only costs a round trip.
 *
 * The write is reported as a `queue` write when every write of the connection was a call of
 * `tidings_enqueue_at_once` (a save's usual transaction: it changes a queue's items and version, nothing
 * else), else as `any`.
 */
export function trackingPool(pool: PgModule.Pool, onWrite: (kind: WriteKind) => void): PostgresPool {
  return {
    connect: async () => tracked(await pool.connect(), onWrite),
    end: () => pool.end(),
  };
}

function tracked(client: PgModule.PoolClient, onWrite: (kind: WriteKind) => void): PostgresPoolClient {
  let wrote: WriteKind | null = null;
  const query = async <R>(text: string, parameters: ReadonlyArray<unknown>) => {
    try {
      const result = await client.query(text, [...parameters]);
      if (QUEUE_ONLY.test(text)) wrote ??= 'queue';
      else if (result.command !== 'SELECT' || !READ.test(text) || OWN_FUNCTION.test(text)) wrote = 'any';
      return result as unknown as PostgresQueryResult<R>;
    } catch (err) {
      wrote = 'any'; // a failed statement may still have been part of a transaction that wrote
      throw err;
    }
  };
  return {
    query: query as PostgresPoolClient['query'],
    release: () => {
      client.release();
      if (wrote !== null) onWrite(wrote);
    },
  };
}

const READ = /^\s*select\s/i;
const OWN_FUNCTION = /\btidings_\w+\s*\(/i;
const QUEUE_ONLY = /^\s*select \* from tidings_enqueue_at_once\(/i;
