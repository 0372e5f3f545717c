import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './index.js';

/**
 * Notices for the caches of other instances (issue 14, part 2), PostgreSQL only: each instance caches API
 * keys and queue versions, and forgets them when told (src/store/changeFeed.ts). These triggers tell, in
 * the writing transaction, so the notice is delivered at its commit, whichever code wrote (the API, the
 * web app, a digest build, feed queueing, the CLI, a cascade):
 *
 * - `a<id>` on channel tidings_changes when an account's queue_version or disabled_at changes, or the
 *   account is deleted;
 * - `k<prefix>` when an API key's revoked_at changes, or the key is deleted (also by its account's cascade).
 *
 * One notice per row: PostgreSQL folds identical notices of one transaction into one, and a group commit
 * touches one account row per account. SQLite needs none of this: nothing there is cached across requests.
 */
export async function up(db: Kysely<unknown>, { engine }: MigrationContext): Promise<void> {
  if (engine !== 'postgres') return;
  await sql`
    create function tidings_notify_account() returns trigger language plpgsql as $$
    begin
      perform pg_notify('tidings_changes', 'a' || old.id);
      return null;
    end $$`.execute(db);
  await sql`
    create function tidings_notify_api_key() returns trigger language plpgsql as $$
    begin
      perform pg_notify('tidings_changes', 'k' || old.prefix);
      return null;
    end $$`.execute(db);
  await sql`
    create trigger accounts_notify_update after update on accounts for each row
    when (old.queue_version is distinct from new.queue_version or old.disabled_at is distinct from new.disabled_at)
    execute function tidings_notify_account()`.execute(db);
  await sql`
    create trigger accounts_notify_delete after delete on accounts for each row
    execute function tidings_notify_account()`.execute(db);
  await sql`
    create trigger api_keys_notify_update after update on api_keys for each row
    when (old.revoked_at is distinct from new.revoked_at)
    execute function tidings_notify_api_key()`.execute(db);
  await sql`
    create trigger api_keys_notify_delete after delete on api_keys for each row
    execute function tidings_notify_api_key()`.execute(db);
}
