import type { Kysely } from 'kysely';

/**
 * The language an account reads Tidings in (issue 36): a BCP 47 code of src/i18n/languages.ts ("de",
 * "pt-BR"), checked where it is set; null for the operator's TIDINGS_LANGUAGE, else the browser's, else
 * English.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('accounts').addColumn('language', 'text').execute();
}
