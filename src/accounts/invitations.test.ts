import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTidingsError } from '../errors.js';
import { rowsNamingAccount, strayRows } from '../test/accountRows.js';
import { ENGINES, freshStore, postgresSkipReason } from '../test/databases.js';
import { queueFeedItem, saveUrl, testDigestDeps } from '../test/digestPipeline.js';
import { buildDigestNow } from '../digest/build.js';
import { setAdministrator } from './admin.js';
import { authenticate } from './authorize.js';
import { deleteOwnAccount, removeAccount } from './deleteAccount.js';
import {
  acceptInvitation,
  invitationFor,
  inviteAccount,
  openInvitations,
  revokeInvitation,
} from './invitations.js';
import { createAccountWithKey } from './service.js';
import { openSession } from './sessions.js';

/** Invitations (single use, expiring) and deleting an account with everything in it, on both engines. */

const pgSkip = await postgresSkipReason();
const HOUR = 60 * 60 * 1000;

for (const engine of ENGINES) {
  const opts = { skip: engine === 'postgres' ? pgSkip : undefined };

  await test(`an invitation works once, until it expires, unless withdrawn [${engine}]`, opts, async (t) => {
    const store = await freshStore(t, engine);
    const admin = await createAccountWithKey(store, { name: 'Admin' });
    const t0 = new Date('2026-11-20T10:00:00.000Z');

    await assert.rejects(inviteAccount(store, admin.account.id, { days: 3 }, t0), /1, 7, 30 days/);
    await assert.rejects(inviteAccount(store, admin.account.id, { days: 7, email: 'nope' }, t0), /email/);
    await assert.rejects(
      inviteAccount(store, admin.account.id, { days: 7, note: 'x'.repeat(201) }, t0),
      /note/,
    );

    const { token, invitation } = await inviteAccount(
      store,
      admin.account.id,
      { days: 7, note: 'Ada', email: 'ada@example.org' },
      t0,
    );
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    const stored = await store.db.selectFrom('invitations').select('token_hash').executeTakeFirstOrThrow();
    assert.notEqual(stored.token_hash, token, 'only the hash is stored');
    assert.equal(invitation.expires_at, new Date(t0.getTime() + 7 * 24 * HOUR).toISOString());
    assert.deepEqual(
      (await openInvitations(store, t0)).map((i) => i.id),
      [invitation.id],
    );
    assert.equal(
      (await invitationFor(store, token, new Date(t0.getTime() + 7 * 24 * HOUR))).state,
      'expired',
    );
    assert.equal((await invitationFor(store, 'x'.repeat(43), t0)).state, 'unknown');
    assert.equal((await invitationFor(store, 'short', t0)).state, 'unknown');

    // Bad input loses nothing: the invitation still works.
    await assert.rejects(acceptInvitation(store, token, { name: ' ' }, t0), (e) =>
      isTidingsError(e, 'invalid_input'),
    );
    await assert.rejects(
      acceptInvitation(store, token, { name: 'Ada', timezone: 'Mars/Base' }, t0),
      /time zone/,
    );
    assert.equal((await invitationFor(store, token, t0)).state, 'open');

    // Two acceptances at once: one account.
    const results = await Promise.allSettled([
      acceptInvitation(
        store,
        token,
        { name: 'Ada', email: 'ada@example.org', timezone: 'Europe/Berlin' },
        t0,
      ),
      acceptInvitation(store, token, { name: 'Ada twice' }, t0),
    ]);
    const won = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    assert.equal(won.length, 1, JSON.stringify(results.map((r) => r.status)));
    const lost = results.find((r) => r.status === 'rejected');
    assert.ok(lost !== undefined && isTidingsError(lost.reason, 'not_found'));
    const ada = won[0];
    assert.ok(ada !== undefined);
    assert.equal(ada.account.is_admin, false);
    assert.equal((await authenticate(store, ada.apiKey))?.accountId, ada.account.id);
    const names = await store.db.selectFrom('accounts').select('name').orderBy('id').execute();
    assert.equal(names.length, 2);
    assert.equal((await invitationFor(store, token, t0)).state, 'used');
    const row = await store.db.selectFrom('invitations').selectAll().executeTakeFirstOrThrow();
    assert.equal(row.used_by_account_id, ada.account.id);
    assert.deepEqual(await openInvitations(store, t0), []);
    await assert.rejects(acceptInvitation(store, token, { name: 'Again' }, t0), /used already/);

    // Expired: refused, and nothing is created.
    const late = await inviteAccount(store, admin.account.id, { days: 1 }, t0);
    await assert.rejects(
      acceptInvitation(store, late.token, { name: 'Late' }, new Date(t0.getTime() + 25 * HOUR)),
      /expired/,
    );
    // Withdrawn: gone.
    assert.equal(await revokeInvitation(store, late.invitation.id), true);
    assert.equal(await revokeInvitation(store, late.invitation.id), false);
    assert.equal(await revokeInvitation(store, row.id), false, 'a used invitation stays on record');
    assert.equal((await invitationFor(store, late.token, t0)).state, 'unknown');
    assert.equal((await store.db.selectFrom('accounts').select('id').execute()).length, 2);
  });

  await test(
    `deleting an account removes every row of it; the last administrator stays while others exist [${engine}]`,
    opts,
    async (t) => {
      const store = await freshStore(t, engine);
      const admin = await createAccountWithKey(store, { name: 'Admin' });
      const reader = await createAccountWithKey(store, { name: 'Reader' });
      const id = reader.account.id;
      const now = new Date();

      // Everything an account can have: a second key, a session, links, feeds (one shared), a digest, invitations.
      const auth = await authenticate(store, reader.apiKey);
      assert.ok(auth !== null);
      await openSession(store, auth, now);
      await saveUrl(store, id, 'https://example.org/saved');
      await queueFeedItem(store, id, {
        feedUrl: 'https://feeds.example/own.xml',
        feedTitle: 'Own',
        url: 'https://example.org/own',
        title: 'Own',
      });
      await queueFeedItem(store, id, {
        feedUrl: 'https://feeds.example/shared.xml',
        feedTitle: 'Shared',
        url: 'https://example.org/s',
        title: 'S',
      });
      await queueFeedItem(store, admin.account.id, {
        feedUrl: 'https://feeds.example/shared.xml',
        feedTitle: 'Shared',
        url: 'https://example.org/s',
        title: 'S',
      });
      assert.equal((await buildDigestNow(testDigestDeps(store), id)).status, 'built');
      await saveUrl(store, id, 'https://example.org/after');
      await setAdministrator(store, id, true);
      const made = await inviteAccount(store, id, { days: 7 }, now);
      const invitee = await acceptInvitation(store, made.token, { name: 'Invitee' }, now);
      await inviteAccount(store, id, { days: 7 }, now);
      await setAdministrator(store, id, false);
      const before = await rowsNamingAccount(store, id);
      for (const table of [
        'api_keys.account_id',
        'queue_items.account_id',
        'subscriptions.account_id',
        'digests.account_id',
        'digest_tokens.account_id',
        'web_sessions.account_id',
        'invitations.created_by',
      ]) {
        assert.ok((before[table] ?? 0) > 0, `${table} has rows before: ${JSON.stringify(before)}`);
      }

      await assert.rejects(deleteOwnAccount(store, id, 'reader'), /exactly/);
      await deleteOwnAccount(store, id, '  Reader ');
      const after = await rowsNamingAccount(store, id);
      assert.deepEqual(
        Object.entries(after).filter(([, n]) => n > 0),
        [],
        JSON.stringify(after),
      );
      assert.ok(
        Object.keys(after).length >= 8,
        `every account table is counted: ${Object.keys(after).join(', ')}`,
      );
      assert.deepEqual(await strayRows(store), { digestItems: 0, feeds: 0 });
      const feeds = await store.db.selectFrom('feeds').select('url').execute();
      assert.deepEqual(
        feeds.map((f) => f.url),
        ['https://feeds.example/shared.xml'],
        'the shared feed stays',
      );
      assert.equal(await authenticate(store, reader.apiKey), null);
      // The invitation it made and the account that came of it: the account stays, the invitation went.
      assert.notEqual(await authenticate(store, invitee.apiKey), null);

      // The last administrator stays while others exist; alone, it may go.
      await assert.rejects(deleteOwnAccount(store, admin.account.id, 'Admin'), /last administrator/);
      await removeAccount(store, invitee.account.id);
      await deleteOwnAccount(store, admin.account.id, 'Admin');
      assert.deepEqual(await store.db.selectFrom('accounts').select('id').execute(), []);
      await assert.rejects(removeAccount(store, admin.account.id), (e) => isTidingsError(e, 'not_found'));
    },
  );
}
