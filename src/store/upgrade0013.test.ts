import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { sql } from 'kysely';
import { findSession } from '../accounts/sessions.js';
import { ENGINES, postgresSkipReason, storeMigratedTo } from '../test/databases.js';
import { migrateToLatest } from './migrate.js';
import { createPasskey } from './passkeys.js';
import { createWebSession } from './webSessions.js';

/**
 * 0013 lets a session be opened without an API key (SQLite copies web_sessions into a new table): the
 * sessions of browsers signed in before it stay signed in, revoking or deleting their key still ends them,
 * and a passkey's sessions go when it is deleted.
 */
const pgSkip = await postgresSkipReason();
for (const engine of ENGINES) {
  await test(
    `0013_passwords_passkeys keeps the sessions open before it [${engine}]`,
    { skip: engine === 'postgres' ? pgSkip : undefined },
    async (t) => {
      const store = await storeMigratedTo(t, engine, '0012_feed_skips');
      const at = '2026-11-01T00:00:00.000Z';
      const until = '2026-12-01T00:00:00.000Z';
      const token = 'a'.repeat(43);
      const other = 'b'.repeat(43);
      const hash = (s: string): string => createHash('sha256').update(s).digest('hex');
      await sql`insert into accounts (name, email, timezone, created_at) values ('old', null, 'UTC', ${at})`.execute(
        store.db,
      );
      await sql`insert into api_keys (account_id, name, prefix, key_hash, created_at)
        values (1, 'one', 'p1', 'h1', ${at}), (1, 'two', 'p2', 'h2', ${at})`.execute(store.db);
      await sql`insert into web_sessions (id, account_id, key_id, csrf_token, created_at, expires_at)
        values (${hash(token)}, 1, 1, 'c1', ${at}, ${until}), (${hash(other)}, 1, 2, 'c2', ${at}, ${until})`.execute(
        store.db,
      );
      await migrateToLatest(store);

      const now = new Date('2026-11-02T00:00:00.000Z');
      const found = await findSession(store, token, now);
      assert.ok(found !== null);
      assert.deepEqual(
        [found.session.keyId, found.session.method, found.session.passkeyId, found.session.csrfToken],
        [1, 'key', null, 'c1'],
      );
      // The foreign keys survived the copy: a deleted key takes its sessions along.
      await sql`delete from api_keys where id = 2`.execute(store.db);
      assert.equal(await findSession(store, other, now), null);
      assert.equal((await store.db.selectFrom('web_sessions').select('id').execute()).length, 1);

      await createPasskey(store.db, 1, {
        credentialId: 'cred',
        publicKey: new Uint8Array([1, 2, 3, 255]),
        counter: 4_000_000_000,
        transports: ['internal', 'hybrid'],
        userHandle: 'handle',
        name: 'phone',
        createdAt: at,
      });
      const passkey = await store.db.selectFrom('passkeys').selectAll().executeTakeFirstOrThrow();
      assert.deepEqual([...passkey.public_key], [1, 2, 3, 255], 'bytes in, bytes out');
      assert.equal(passkey.counter, 4_000_000_000, 'a 32-bit unsigned counter fits');
      const third = 'c'.repeat(43);
      await createWebSession(store.db, 1, {
        id: hash(third),
        method: 'passkey',
        keyId: null,
        passkeyId: passkey.id,
        csrfToken: 'c3',
        createdAt: at,
        expiresAt: until,
      });
      assert.equal((await findSession(store, third, now))?.session.method, 'passkey');
      await sql`delete from passkeys where id = ${passkey.id}`.execute(store.db);
      assert.equal(await findSession(store, third, now), null);
      assert.notEqual(await findSession(store, token, now), null);
    },
  );
}
