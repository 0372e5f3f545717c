import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { ensureFirstAccount } from '../accounts/service.js';
import { addSavedUrl } from '../queue/add.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { type Store, openStore, parseDatabaseUrl } from './db.js';
import { migrateToLatest } from './migrate.js';
import { savedUrlsByAccount } from './queueItems.js';

test('DATABASE_URL picks the engine', () => {
  assert.deepEqual(parseDatabaseUrl('./data/tidings.db'), { engine: 'sqlite', file: './data/tidings.db' });
  assert.deepEqual(parseDatabaseUrl('sqlite:/var/lib/tidings.db'), {
    engine: 'sqlite',
    file: '/var/lib/tidings.db',
  });
  assert.deepEqual(parseDatabaseUrl('sqlite://relative.db'), { engine: 'sqlite', file: 'relative.db' });
  assert.deepEqual(parseDatabaseUrl('file:///tmp/t.db'), { engine: 'sqlite', file: '/tmp/t.db' });
  assert.equal(parseDatabaseUrl('postgres://u@h/db').engine, 'postgres');
  assert.equal(parseDatabaseUrl('postgresql://u@h/db').engine, 'postgres');
  assert.throws(
    () => parseDatabaseUrl('mysql://root:pw@h/db'),
    /unsupported DATABASE_URL scheme in mysql:\/\/root:\[redacted\]@h\/db/,
  );
});

await describeEachEngine('store', (ctx) => {
  /**
   * Separate connections, as several instances have. On SQLite, one process has one connection (a
   * second one in the same process would block the event loop in busy_timeout while the first waits on
   * it), so there the concurrency is that of many requests sharing it.
   */
  const connections = (n: number): { stores: Store[]; close: () => Promise<void> } => {
    if (ctx.engine === 'sqlite')
      return { stores: Array.from({ length: n }, () => ctx.store()), close: () => Promise.resolve() };
    const stores = Array.from({ length: n }, () => openStore(ctx.url()));
    const close = async (): Promise<void> => {
      await Promise.all(stores.map((s) => s.close()));
    };
    return { stores, close };
  };

  test('migrations are recorded and running them again changes nothing', async () => {
    assert.deepEqual(await migrateToLatest(ctx.store()), []);
    const other = openStore(ctx.url());
    try {
      assert.deepEqual(await migrateToLatest(other), []);
    } finally {
      await other.close();
    }
    const tables = await ctx.store().db.introspection.getTables();
    const names = tables
      .map((t) => t.name)
      .filter((n) => !n.startsWith('kysely_'))
      .sort();
    assert.deepEqual(names, [
      'account_passwords',
      'accounts',
      'api_clients',
      'api_keys',
      'api_tokens',
      'digest_action_tokens',
      'digest_items',
      'digest_reading_items',
      'digest_tokens',
      'digests',
      'feed_items',
      'feeds',
      'invitations',
      'meta',
      'newsletter_addresses',
      'newsletter_messages',
      'newsletter_senders',
      'opds_tokens',
      'opml_imports',
      'page_host_leases',
      'pages',
      'passkeys',
      'queue_items',
      'reading_list',
      'reading_tags',
      'search_documents',
      // SQLite: the FTS5 tables of search and their shadow tables (migrations 0015 and 0017).
      ...(ctx.engine === 'sqlite'
        ? [
            'search_fts',
            'search_fts_config',
            'search_fts_data',
            'search_fts_docsize',
            'search_fts_idx',
            'search_grams',
            'search_grams_config',
            'search_grams_data',
            'search_grams_docsize',
            'search_grams_idx',
            'search_grams_instances',
          ]
        : []),
      'search_texts',
      'subscriptions',
      'unsubscribe_tokens',
      'web_sessions',
      'webauthn_challenges',
      'worker_leases',
    ]);
  });

  test('the first account is created once, however many instances start together', async () => {
    const { stores, close } = connections(4);
    try {
      const results = await Promise.allSettled(stores.map((s) => ensureFirstAccount(s)));
      const created = results.filter((r) => r.status === 'fulfilled' && r.value !== null);
      assert.equal(created.length, 1, JSON.stringify(results.map((r) => r.status)));
      assert.equal(await ensureFirstAccount(ctx.store()), null);
    } finally {
      await close();
    }
  });

  test('concurrent saves of the same URL from several connections queue it once', async () => {
    const { id } = await newAccount(ctx.store());
    const { stores, close } = connections(4);
    try {
      const saves = stores.flatMap((s, i) =>
        Array.from({ length: 5 }, (_, j) =>
          addSavedUrl(
            s,
            id,
            { url: `https://Example.com/same#${i}-${j}`, title: undefined, source: 'api' },
            { limit: 100 },
          ),
        ),
      );
      const outcomes = await Promise.all(saves);
      assert.equal(outcomes.filter((o) => o === 'added').length, 1);
      assert.equal((await savedUrlsByAccount(ctx.store().db, id)).length, 1);
    } finally {
      await close();
    }
  });

  test('the queue limit holds under concurrent saves', async () => {
    const { id } = await newAccount(ctx.store());
    const { stores, close } = connections(4);
    try {
      const saves = Array.from({ length: 20 }, (_, i) =>
        addSavedUrl(
          stores[i % 4] ?? ctx.store(),
          id,
          { url: `https://e.com/${i}`, title: undefined, source: 'api' },
          { limit: 7 },
        ),
      );
      const results = await Promise.allSettled(saves);
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 7);
      assert.equal((await savedUrlsByAccount(ctx.store().db, id)).length, 7);
    } finally {
      await close();
    }
  });

  test('deleting an account removes its keys and queue', async () => {
    const { id } = await newAccount(ctx.store());
    await addSavedUrl(
      ctx.store(),
      id,
      { url: 'https://e.com/x', title: undefined, source: 'api' },
      { limit: 10 },
    );
    await ctx.store().db.deleteFrom('accounts').where('id', '=', id).execute();
    const left = await sql<{
      n: number;
    }>`select count(*) as n from queue_items where account_id = ${id}`.execute(ctx.store().db);
    assert.equal(Number(left.rows[0]?.n), 0);
  });
});
