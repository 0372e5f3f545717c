import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/*
 * Named leases (migration 0041): work one process of an instance does at a time, on either engine. A
 * lease is taken when nobody holds it or its holder let it expire, and renewed by the same call.
 */

/**
 * Takes or renews the lease `name` for `holder` until `expiresAt`; true when `holder` holds it now. Another
 * holder's lease is taken over only once its expiry is before `now`. One statement, atomic on both engines.
 */
export async function takeLease(
  db: Kysely<Database>,
  name: string,
  holder: string,
  at: { now: Date; expiresAt: Date },
): Promise<boolean> {
  const expires = at.expiresAt.toISOString();
  const result = await db
    .insertInto('worker_leases')
    .values({ name, holder, expires_at: expires })
    .onConflict((oc) =>
      oc
        .column('name')
        .doUpdateSet({ holder, expires_at: expires })
        .where((eb) =>
          eb.or([
            eb('worker_leases.holder', '=', holder),
            eb('worker_leases.expires_at', '<', at.now.toISOString()),
          ]),
        ),
    )
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

/** Gives the lease up, if `holder` holds it: the next process takes it at once. */
export async function releaseLease(db: Kysely<Database>, name: string, holder: string): Promise<void> {
  await db.deleteFrom('worker_leases').where('name', '=', name).where('holder', '=', holder).execute();
}

/** Who holds the lease `name` now (expired or not), for tests and logs; null when nobody. */
export async function leaseHolder(db: Kysely<Database>, name: string): Promise<string | null> {
  const row = await db
    .selectFrom('worker_leases')
    .select('holder')
    .where('name', '=', name)
    .executeTakeFirst();
  return row?.holder ?? null;
}
