import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestContext } from 'node:test';
import { Migrator } from 'kysely';
import { type Engine, type Store, openStore } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';
import { migrationsFor } from '../store/migrations/index.js';

export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let pgCheck: Promise<string | undefined> | undefined;

/**
 * Undefined when PostgreSQL tests can run, else why not. With CI=true an unreachable PostgreSQL is an
 * error, never a skip.
 */
export function postgresSkipReason(): Promise<string | undefined> {
  pgCheck ??= (async () => {
    const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('select 1');
      return undefined;
    } catch (err) {
      const reason = `PostgreSQL at ${ADMIN_URL} is not reachable (${err instanceof Error ? err.message : String(err)})`;
      if (process.env.CI === 'true') throw new Error(`${reason}; CI=true requires it`);
      return `${reason}; set TEST_DATABASE_URL to run these tests`;
    } finally {
      await client.end().catch(() => undefined);
    }
  })();
  return pgCheck;
}

export interface TestDatabase {
  engine: Engine;
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database of the given engine: a temporary SQLite file, or a new PostgreSQL database. */
export async function createTestDatabase(engine: Engine): Promise<TestDatabase> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'tidings-test-'));
    return {
      engine,
      url: join(dir, 'tidings.db'),
      drop: () => {
        rmSync(dir, { recursive: true, force: true });
        return Promise.resolve();
      },
    };
  }
  const name = `tidings_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    engine,
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

export const ENGINES: readonly Engine[] = ['sqlite', 'postgres'];

/**
 * A store on a fresh database of this engine, migrated only up to `migration` (to test an upgrade of a
 * database in use); closed and dropped when the test ends.
 */
export async function storeMigratedTo(t: TestContext, engine: Engine, migration: string): Promise<Store> {
  const db = await createTestDatabase(engine);
  const store = openStore(db.url);
  t.after(async () => {
    await store.close();
    await db.drop();
  });
  const migrator = new Migrator({
    db: store.db,
    provider: { getMigrations: () => Promise.resolve(migrationsFor(engine)) },
  });
  const { error } = await migrator.migrateTo(migration);
  if (error !== undefined) throw new Error(`migrating to ${migration} failed`, { cause: error });
  return store;
}

/** A database of its own at the latest migration (for tests where "the first account" matters). */
export async function freshStore(t: TestContext, engine: Engine): Promise<Store> {
  const store = await storeMigratedTo(t, engine, '0001_init');
  await migrateToLatest(store);
  return store;
}
