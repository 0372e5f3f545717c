import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Records a one-time event; returns true only for the first caller, across processes and instances. */
export async function claimOnce(db: Kysely<Database>, key: string, value: string): Promise<boolean> {
  const result = await db
    .insertInto('meta')
    .values({ key, value })
    .onConflict((oc) => oc.column('key').doNothing())
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}
