import { createHash } from 'node:crypto';
import type * as PgModule from 'pg';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type { WriteKind } from './changeFeed.js';
import { storableParameters } from './storableText.js';

/**
 * The PostgreSQL pool Kysely is given, with two additions. Every statement's parameters are storable
 * (storableText.ts: no U+0000, which PostgreSQL refuses). And `onWrite` is called each time a connection that
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
 *
 * That call, the busiest statement of a busy server, is also sent as a named (prepared) statement: parsed
 * and planned once per connection instead of on every save (measured: 480–495 µs a call against 510–550
 * unnamed). Its plan has no choice to make (the function's own statements keep their plans, see migration
 * 0023), so a generic plan costs nothing. Behind a pooler in transaction mode that does not keep prepared
 * statements (PgBouncer before 1.21, or with max_prepared_statements = 0) the server answers that the
 * statement does not exist (26000) or already does (42P05): nothing ran, so the call is sent again unnamed,
 * and so is every later one of the pool. (The call is always a transaction of its own, createQueueItemsAtOnce
 * on the pool, so no transaction is left aborted by the first attempt.)
 */
export function trackingPool(pool: PgModule.Pool, onWrite: (kind: WriteKind) => void): PostgresPool {
  const names: Naming = { on: true, byText: new Map() };
  return {
    connect: async () => tracked(await pool.connect(), onWrite, names),
    end: () => pool.end(),
  };
}

/** Whether the pool still names the saves' call, and the name of each of its texts (one in practice). */
interface Naming {
  on: boolean;
  byText: Map<string, string>;
}

function tracked(
  client: PgModule.PoolClient,
  onWrite: (kind: WriteKind) => void,
  names: Naming,
): PostgresPoolClient {
  let wrote: WriteKind | null = null;
  const query = async <R>(text: string, parameters: ReadonlyArray<unknown>) => {
    try {
      const saves = QUEUE_ONLY.test(text);
      const values = [...storableParameters(parameters)];
      const result = saves ? await namedCall(client, names, text, values) : await client.query(text, values);
      if (saves) wrote ??= 'queue';
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

/** SQLSTATEs of a named statement the server does not have (26000) or already has (42P05). */
const LOST_STATEMENT = new Set(['26000', '42P05']);

/** The saves' call as a named statement, or unnamed once the server has shown it does not keep one. */
async function namedCall(
  client: PgModule.PoolClient,
  names: Naming,
  text: string,
  values: unknown[],
): Promise<PgModule.QueryResult> {
  if (names.on) {
    let name = names.byText.get(text);
    if (name === undefined) {
      name = `tidings_save_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
      names.byText.set(text, name);
    }
    try {
      return await client.query({ name, text, values });
    } catch (err) {
      const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
      if (typeof code !== 'string' || !LOST_STATEMENT.has(code)) throw err;
      names.on = false;
    }
  }
  return client.query(text, values);
}
