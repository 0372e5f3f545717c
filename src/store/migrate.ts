import { Migrator, type MigrationResult } from 'kysely';
import type { Store } from './db.js';
import { migrationsFor } from './migrations/index.js';

export class MigrationError extends Error {
  override name = 'MigrationError';
}

/** Brings the schema up to date. Safe to run from several processes at once (Kysely holds a migration lock). */
export async function migrateToLatest(store: Store): Promise<MigrationResult[]> {
  const migrations = migrationsFor(store.engine);
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new MigrationError(
      `migration ${failed} failed: ${error instanceof Error ? error.message : JSON.stringify(error)}`,
      { cause: error },
    );
  }
  return results ?? [];
}
