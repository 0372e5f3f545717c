import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './index.js';

/**
 * E-mail addresses are unique across accounts, whatever their case (issue 25, F7). Until now several
 * accounts could share one address: a password sign-in then tried each of them (the answer's time told how
 * many), and an address that named two accounts signed in only the first whose password matched.
 *
 * Existing duplicates are resolved without losing an account: the address stays on the oldest account that
 * has it (the lowest id, the first created) and is cleared (set to null) on the others, which keep
 * everything else and can still sign in with their name, a key or a passkey; their digests are not emailed
 * until an address is set again on Settings. Which were cleared is recorded in the `meta` row
 * `emails_cleared_by_0026` (JSON: account id, name, the address it had, the account that kept it), which
 * `tidings migrate` prints and `serve` logs when it applies this migration (docs/web.md). An address that
 * is blank (only spaces) is no address: it becomes null too, unrecorded.
 *
 * Then a unique index on lower(email) on both engines (NULLs never collide). The services check it through
 * the index itself: a write that would share an address fails, and store/accounts.ts turns that failure
 * into `email_taken`.
 *
 * And opml_imports: an OPML import as it stands, one row per account (its last import), so that an import
 * cut short (the process killed, the database gone) says so instead of leaving part of a file subscribed
 * without a word. `listed` is the feeds of the file, `done` those handled in committed batches (each batch
 * advances it in its own transaction), `state` 'running' until the import ends, then 'finished';
 * `updated_at` moves with each batch, so a row still 'running' long after it is an import cut short.
 * Importing the same file again skips what is followed already and finishes it (docs/feeds.md).
 */
const CLEARED_KEY = 'emails_cleared_by_0026';

interface Row {
  id: number;
  name: string;
  email: string;
  /** The engine's own lower(), which the index compares with (not JavaScript's for every letter). */
  k: string;
}

export async function up(db: Kysely<unknown>, { idColumn }: MigrationContext): Promise<void> {
  await sql`update accounts set email = null where email is not null and trim(email) = ''`.execute(db);
  const { rows } = await sql<Row>`
    select id, name, email, lower(email) as k from accounts
    where email is not null and lower(email) in (
      select lower(email) from accounts where email is not null group by lower(email) having count(*) > 1)
    order by id`.execute(db);
  const keeper = new Map<string, number>();
  const cleared: { account: number; name: string; email: string; keptBy: number }[] = [];
  for (const row of rows) {
    const kept = keeper.get(row.k);
    if (kept === undefined) keeper.set(row.k, row.id);
    else cleared.push({ account: row.id, name: row.name, email: row.email, keptBy: kept });
  }
  for (let i = 0; i < cleared.length; i += 500) {
    const ids = cleared.slice(i, i + 500).map((c) => c.account);
    await sql`update accounts set email = null where id in (${sql.join(ids)})`.execute(db);
  }
  if (cleared.length > 0) {
    await sql`insert into meta (key, value) values (${CLEARED_KEY}, ${JSON.stringify(cleared)})`.execute(db);
  }
  await sql`create unique index accounts_email_lower_key on accounts (lower(email))`.execute(db);

  await db.schema
    .createTable('opml_imports')
    .addColumn('id', 'integer', idColumn)
    .addColumn('account_id', 'integer', (c) =>
      c.notNull().unique().references('accounts.id').onDelete('cascade'),
    )
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('listed', 'integer', (c) => c.notNull())
    .addColumn('done', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
