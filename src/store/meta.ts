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

/** The value of the row `key`; null when there is none. */
export async function metaValue(db: Kysely<Database>, key: string): Promise<string | null> {
  const row = await db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value ?? null;
}

/**
 * The value of the row `key`, written as `value` first when there is none. The first writer wins, on every
 * process and instance of the database: each reads back the same value (an instance-wide secret, say).
 */
export async function metaValueOrInsert(db: Kysely<Database>, key: string, value: string): Promise<string> {
  const found = await metaValue(db, key);
  if (found !== null) return found;
  await claimOnce(db, key, value);
  const stored = await metaValue(db, key);
  if (stored === null) throw new Error(`the meta row ${key} was written but cannot be read back`);
  return stored;
}
