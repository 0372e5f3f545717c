import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './index.js';

/**
 * The notices of 0020 tell apart an account whose queue moved from an account whose state changed, so
 * that an instance keeps its cached API keys while saves move the queue (issue 14: POST on PostgreSQL).
 * PostgreSQL only, like 0020.
 *
 * 0020 sent `a<id>` for both. Under a stream of saves to one account every commit sent it, and each
 * instance forgot the account's keys with its queue version: nine in ten API key checks of a POST read
 * the database again (measured with 10 clients saving to one account). Now:
 *
 * - `q<id>` when only the account's queue_version changed: the queue's cached version is forgotten;
 * - `a<id>` when its disabled_at changed (with or without its queue_version), or the account is deleted:
 *   its keys are forgotten too, as before.
 *
 * An instance of an earlier version that reads `q<id>` drops everything it caches (changeFeed.ts: a notice
 * it cannot read), which is safe during a rolling upgrade.
 */
export async function up(db: Kysely<unknown>, { engine }: MigrationContext): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`
    create or replace function tidings_notify_account() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' and old.disabled_at is not distinct from new.disabled_at then
        perform pg_notify('tidings_changes', 'q' || old.id);
      else
        perform pg_notify('tidings_changes', 'a' || old.id);
      end if;
      return null;
    end $$`.execute(db);
}
