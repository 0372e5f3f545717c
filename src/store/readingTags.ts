import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/*
 * reading_tags (migration 0050): a stable number for each tag label of an account, which wallabag's
 * clients name tags by. The labels of an item stay in reading_list.tags; a label gets its number the
 * first time a client sees it.
 */

/** The numbers of these labels (lower-cased, as stored), given to those that have none yet. */
export async function tagIdsOf(
  db: Kysely<Database>,
  accountId: number,
  labels: readonly string[],
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  if (labels.length === 0) return ids;
  const wanted = [...new Set(labels)];
  const read = async (which: readonly string[]): Promise<void> => {
    const rows = await db
      .selectFrom('reading_tags')
      .select(['id', 'label'])
      .where('account_id', '=', accountId)
      .where('label', 'in', which)
      .execute();
    for (const r of rows) ids.set(r.label, r.id);
  };
  await read(wanted);
  const missing = wanted.filter((l) => !ids.has(l));
  if (missing.length === 0) return ids;
  await db
    .insertInto('reading_tags')
    .values(missing.map((label) => ({ account_id: accountId, label })))
    .onConflict((oc) => oc.columns(['account_id', 'label']).doNothing())
    .execute();
  await read(missing);
  return ids;
}

/** The label of one of the account's tag numbers; null when it has none of that number. */
export async function tagLabelOf(
  db: Kysely<Database>,
  accountId: number,
  id: number,
): Promise<string | null> {
  const row = await db
    .selectFrom('reading_tags')
    .select('label')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.label ?? null;
}
