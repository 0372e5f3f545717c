import type { ColumnDefinitionBuilder, Kysely, Migration } from 'kysely';
import type { Engine } from '../db.js';
import * as m0001 from './0001_init.js';
import * as m0002 from './0002_feeds.js';
import * as m0003 from './0003_digests.js';
import * as m0004 from './0004_subscription_backfill.js';
import * as m0005 from './0005_url_keys.js';
import * as m0006 from './0006_digest_tokens.js';
import * as m0007 from './0007_web_sessions.js';
import * as m0008 from './0008_digest_item_domain.js';
import * as m0009 from './0009_digest_token_backfill.js';
import * as m0010 from './0010_pages.js';
import * as m0011 from './0011_digest_tallies.js';
import * as m0012 from './0012_feed_skips.js';
import * as m0013 from './0013_passwords_passkeys.js';
import * as m0014 from './0014_account_admin.js';
import * as m0015 from './0015_search.js';
import * as m0016 from './0016_unsubscribe_tokens.js';
import * as m0017 from './0017_search_ngrams.js';
import * as m0018 from './0018_feed_lenient.js';
import * as m0020 from './0020_cache_notify.js';
import * as m0021 from './0021_digest_search_batch.js';
import * as m0022 from './0022_digest_search_lazy.js';
import * as m0023 from './0023_enqueue_at_once.js';
import * as m0024 from './0024_notify_queue_moves.js';
import * as m0025 from './0025_digest_choice.js';
import * as m0026 from './0026_unique_email_opml_imports.js';
import * as m0030 from './0030_page_direction.js';
import * as m0031 from './0031_reading_list.js';
import * as m0032 from './0032_ereader_email.js';
import * as m0033 from './0033_reading_list_pages.js';
import * as m0034 from './0034_resurface.js';
import * as m0035 from './0035_own_saves.js';
import * as m0036 from './0036_token_ages.js';
import * as m0040 from './0040_newsletters.js';
import * as m0041 from './0041_worker_leases.js';
import * as m0045 from './0045_newsletter_confirmations.js';
import * as m0050 from './0050_api_clients.js';
import * as m0051 from './0051_reading_list_saved_order.js';
import * as m0060 from './0060_opds_tokens.js';
import * as m0065 from './0065_account_language.js';
import * as m0075 from './0075_reading_list_entry_orders.js';
import * as m0076 from './0076_feed_error_reason.js';

/** What a migration may need to know about the engine it runs on. */
export interface MigrationContext {
  engine: Engine;
  /** An auto-incrementing integer primary key on either engine. */
  idColumn: (c: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;
}

interface MigrationModule {
  up(db: Kysely<unknown>, ctx: MigrationContext): Promise<void>;
}

/**
 * Numbered and append-only: never edit or reorder a migration that has shipped; add a number above every
 * existing one (Kysely refuses a database that ran a migration whose name sorts after a new one).
 */
const modules: Record<string, MigrationModule> = {
  '0001_init': m0001,
  '0002_feeds': m0002,
  '0003_digests': m0003,
  '0004_subscription_backfill': m0004,
  '0005_url_keys': m0005,
  '0006_digest_tokens': m0006,
  '0007_web_sessions': m0007,
  '0008_digest_item_domain': m0008,
  '0009_digest_token_backfill': m0009,
  '0010_pages': m0010,
  '0011_digest_tallies': m0011,
  '0012_feed_skips': m0012,
  '0013_passwords_passkeys': m0013,
  '0014_account_admin': m0014,
  '0015_search': m0015,
  '0016_unsubscribe_tokens': m0016,
  '0017_search_ngrams': m0017,
  '0018_feed_lenient': m0018,
  '0020_cache_notify': m0020,
  '0021_digest_search_batch': m0021,
  '0022_digest_search_lazy': m0022,
  '0023_enqueue_at_once': m0023,
  '0024_notify_queue_moves': m0024,
  '0025_digest_choice': m0025,
  '0026_unique_email_opml_imports': m0026,
  '0030_page_direction': m0030,
  '0031_reading_list': m0031,
  '0032_ereader_email': m0032,
  '0033_reading_list_pages': m0033,
  '0034_resurface': m0034,
  '0035_own_saves': m0035,
  '0036_token_ages': m0036,
  '0040_newsletters': m0040,
  '0041_worker_leases': m0041,
  '0045_newsletter_confirmations': m0045,
  '0050_api_clients': m0050,
  '0051_reading_list_saved_order': m0051,
  '0060_opds_tokens': m0060,
  '0065_account_language': m0065,
  '0075_reading_list_entry_orders': m0075,
  '0076_feed_error_reason': m0076,
};

export function migrationsFor(engine: Engine): Record<string, Migration> {
  const ctx: MigrationContext = {
    engine,
    idColumn:
      engine === 'sqlite'
        ? (c) => c.primaryKey().autoIncrement()
        : (c) => c.primaryKey().generatedByDefaultAsIdentity(),
  };
  return Object.fromEntries(
    Object.entries(modules).map(([name, mod]) => [name, { up: (db: Kysely<unknown>) => mod.up(db, ctx) }]),
  );
}
