import type { Kysely } from 'kysely';

/**
 * digest_items.domain went unread: renderings take the host from the item's URL (and only from an
 * http(s) one, the only kind they link). Dropped on both engines (SQLite 3.35 and later drop columns).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('digest_items').dropColumn('domain').execute();
}
