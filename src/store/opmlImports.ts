import type { Kysely } from 'kysely';
import type { Database, Timestamp } from './schema.js';
import type { OpmlImportsTable } from './schemaOpmlImports.js';

/** An account's last OPML import as stored (migration 0026). */
export type OpmlImportRow = Omit<OpmlImportsTable, 'id' | 'account_id'>;

/** Records that an import of `listed` feeds starts for the account (it replaces the one before). */
export async function startOpmlImport(
  db: Kysely<Database>,
  accountId: number,
  listed: number,
  at: Timestamp,
): Promise<void> {
  const row = { state: 'running' as const, listed, done: 0, started_at: at, updated_at: at };
  await db
    .insertInto('opml_imports')
    .values({ account_id: accountId, ...row })
    .onConflict((oc) => oc.column('account_id').doUpdateSet(row))
    .execute();
}

/** `handled` more feeds of the import are done: in the transaction that did them. */
export async function advanceOpmlImport(
  db: Kysely<Database>,
  accountId: number,
  handled: number,
  at: Timestamp,
): Promise<void> {
  await db
    .updateTable('opml_imports')
    .set((eb) => ({ done: eb('done', '+', handled), updated_at: at }))
    .where('account_id', '=', accountId)
    .execute();
}

/** The import ended: every feed of the file was handled. */
export async function finishOpmlImport(
  db: Kysely<Database>,
  accountId: number,
  at: Timestamp,
): Promise<void> {
  await db
    .updateTable('opml_imports')
    .set({ state: 'finished', updated_at: at })
    .where('account_id', '=', accountId)
    .execute();
}

/** The account's last import; null when it never imported one. */
export async function lastOpmlImport(db: Kysely<Database>, accountId: number): Promise<OpmlImportRow | null> {
  const row = await db
    .selectFrom('opml_imports')
    .select(['state', 'listed', 'done', 'started_at', 'updated_at'])
    .where('account_id', '=', accountId)
    .executeTakeFirst();
  return row ?? null;
}
