import { sql } from 'kysely';
import type { Store } from '../store/db.js';

/**
 * How many rows of every table that names an account (a foreign key to accounts, found in the database's
 * own catalogue, so a table added later is counted too) still name this one, by "table.column".
 */
export async function rowsNamingAccount(store: Store, accountId: number): Promise<Record<string, number>> {
  const refs =
    store.engine === 'sqlite'
      ? await sql<{ table_name: string; column_name: string }>`
          select m.name as table_name, p."from" as column_name
          from sqlite_master m join pragma_foreign_key_list(m.name) p
          where m.type = 'table' and p."table" = 'accounts'`.execute(store.db)
      : await sql<{ table_name: string; column_name: string }>`
          select kcu.table_name, kcu.column_name
          from information_schema.table_constraints tc
          join information_schema.key_column_usage kcu
            on kcu.constraint_name = tc.constraint_name and kcu.table_schema = tc.table_schema
          join information_schema.constraint_column_usage ccu
            on ccu.constraint_name = tc.constraint_name and ccu.table_schema = tc.table_schema
          where tc.constraint_type = 'FOREIGN KEY' and ccu.table_name = 'accounts'
            and tc.table_schema = current_schema()`.execute(store.db);
  const counts: Record<string, number> = {};
  for (const { table_name: table, column_name: column } of refs.rows) {
    const row = await sql<{ n: number | string }>`
      select count(*) as n from ${sql.table(table)} where ${sql.ref(column)} = ${accountId}`.execute(
      store.db,
    );
    counts[`${table}.${column}`] = Number(row.rows[0]?.n ?? 0);
  }
  return counts;
}

/** Digest items whose digest is gone, and feeds nobody follows: what deleting an account must not leave. */
export async function strayRows(store: Store): Promise<{ digestItems: number; feeds: number }> {
  const items = await sql<{ n: number | string }>`
    select count(*) as n from digest_items where digest_id not in (select id from digests)`.execute(store.db);
  const feeds = await sql<{ n: number | string }>`
    select count(*) as n from feeds where id not in (select feed_id from subscriptions)`.execute(store.db);
  return { digestItems: Number(items.rows[0]?.n ?? 0), feeds: Number(feeds.rows[0]?.n ?? 0) };
}
