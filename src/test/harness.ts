import { after, before, describe } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { createAccountWithKey } from '../accounts/service.js';
import type { AccountId } from '../lib/authorized.js';
import type { EpubBuilds } from '../digest/epub/builds.js';
import { buildServer } from '../http/server.js';
import type { InvalidKeyLimiter } from '../http/invalidKeyLimiter.js';
import { type Engine, type Store, openStore } from '../store/db.js';
import { migrateToLatest } from '../store/migrate.js';
import { ENGINES, type TestDatabase, createTestDatabase, postgresSkipReason } from './databases.js';

export interface EngineContext {
  engine: Engine;
  /** The migrated store for this engine (available inside tests and hooks). */
  store(): Store;
  url(): string;
}

/**
 * Declares the same suite once per engine. Each gets a fresh, migrated database, dropped afterwards.
 * PostgreSQL is skipped (with the reason) only when unreachable and CI is not set.
 */
export async function describeEachEngine(name: string, fn: (ctx: EngineContext) => void): Promise<void> {
  const pgSkip = await postgresSkipReason();
  for (const engine of ENGINES) {
    let db: TestDatabase | undefined;
    let store: Store | undefined;
    const ctx: EngineContext = {
      engine,
      store: () => {
        if (store === undefined) throw new Error('store used outside a test');
        return store;
      },
      url: () => {
        if (db === undefined) throw new Error('url used outside a test');
        return db.url;
      },
    };
    await describe(`${name} [${engine}]`, { skip: engine === 'postgres' ? pgSkip : undefined }, () => {
      before(async () => {
        db = await createTestDatabase(engine);
        store = openStore(db.url);
        await migrateToLatest(store);
      });
      after(async () => {
        await store?.close();
        await db?.drop();
      });
      fn(ctx);
    });
  }
}

export const silentLogger = pino({ level: 'silent' });

export function testServer(
  store: Store,
  options: {
    queueLimit?: number;
    limiter?: InvalidKeyLimiter;
    epubBuilds?: EpubBuilds;
    /** The server's clock (the age of signed links, digest/linkLifetimes.ts); the real one otherwise. */
    now?: () => Date;
  } = {},
): FastifyInstance {
  return buildServer({
    config: { trustProxy: false, queueLimit: options.queueLimit ?? 10_000, baseUrl: 'http://127.0.0.1:8080' },
    store,
    logger: silentLogger,
    ...(options.limiter === undefined ? {} : { limiter: options.limiter }),
    ...(options.epubBuilds === undefined ? {} : { epubBuilds: options.epubBuilds }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
}

let accountCounter = 0;
export async function newAccount(store: Store): Promise<{ id: AccountId; apiKey: string }> {
  const { account, apiKey } = await createAccountWithKey(store, { name: `test ${++accountCounter}` });
  return { id: account.id, apiKey };
}
