import type { Kysely } from 'kysely';

/**
 * A page's declared writing direction (issue 25).
 *
 * - pages.direction: 'rtl' or 'ltr' as the page declares it (`<html dir>`, else `<body dir>`), null when it
 *   declares none (the reading view then lets the text decide, `dir="auto"`). Pages read before stay null
 *   until they are read again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('pages').addColumn('direction', 'text').execute();
}
