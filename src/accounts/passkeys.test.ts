import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { takeWebauthnChallenge } from '../store/webauthnChallenges.js';
import {
  CHALLENGE_SECONDS,
  addPasskey,
  passkeyRegistrationOptions,
  passkeySignInOptions,
  relyingParty,
  signInWithPasskey,
} from './passkeys.js';

/**
 * The server's side of passkey ceremonies that a browser cannot show: challenges are the server's, bound
 * to one session or sign-in form, used once and short-lived. (The whole ceremony runs in Chromium in
 * src/http/web/passkeys.browser.test.ts.)
 */
const rp = relyingParty('https://tidings.example.org/');

test('the relying party is the base URL: its host as the id, its origin as the only origin', () => {
  assert.deepEqual(rp, { id: 'tidings.example.org', origin: 'https://tidings.example.org', name: 'Tidings' });
  assert.equal(relyingParty('http://localhost:8080').origin, 'http://localhost:8080');
});

await describeEachEngine('passkey challenges', (ctx) => {
  const now = new Date('2026-11-24T03:00:00.000Z');
  const later = (seconds: number): Date => new Date(now.getTime() + seconds * 1000);
  const count = async (): Promise<number> =>
    (await ctx.store().db.selectFrom('webauthn_challenges').select('id').execute()).length;

  test('registration options: a discoverable credential, one handle per account; bound to the session', async () => {
    const a = await newAccount(ctx.store());
    const b = await newAccount(ctx.store());
    const options = await passkeyRegistrationOptions(
      ctx.store(),
      a.id,
      { binding: 'session-a', userName: 'reader', rp },
      now,
    );
    assert.equal(options.rp.id, 'tidings.example.org');
    assert.equal(options.authenticatorSelection?.residentKey, 'required');
    assert.match(options.challenge, /^[A-Za-z0-9_-]{43}$/);
    const answer = JSON.stringify({ id: 'x', rawId: 'x', type: 'public-key', response: {} });
    const add = (accountId: typeof a.id, binding: string, at: Date) =>
      addPasskey(ctx.store(), accountId, { binding, rp, response: answer, name: 'phone' }, at);

    // Another session, or another account with this session's binding, finds no challenge waiting.
    assert.equal(await add(a.id, 'session-other', now), 'expired');
    assert.equal(await add(b.id, 'session-a', now), 'expired'); // and that try used it up
    assert.equal(await add(a.id, 'session-a', now), 'expired');

    await passkeyRegistrationOptions(
      ctx.store(),
      a.id,
      { binding: 'session-a', userName: 'reader', rp },
      now,
    );
    assert.equal(await add(a.id, 'session-a', now), 'invalid'); // a malformed answer
    assert.equal(await add(a.id, 'session-a', now), 'expired'); // the challenge went with it

    await passkeyRegistrationOptions(
      ctx.store(),
      a.id,
      { binding: 'session-a', userName: 'reader', rp },
      now,
    );
    assert.equal(await add(a.id, 'session-a', later(CHALLENGE_SECONDS + 1)), 'expired');
    await assert.rejects(
      addPasskey(ctx.store(), a.id, { binding: 'session-a', rp, response: answer, name: ' ' }, now),
      /1 to 100 characters/,
    );
  });

  test('sign-in options: one challenge per form, replaced when asked again, used once, expired ones purged', async () => {
    const first = await passkeySignInOptions(ctx.store(), { binding: 'form-1', rp }, now);
    const again = await passkeySignInOptions(ctx.store(), { binding: 'form-1', rp }, now);
    assert.notEqual(first.challenge, again.challenge);
    assert.equal(first.rpId, 'tidings.example.org');
    assert.equal(first.allowCredentials, undefined, 'no user name: any discoverable passkey of this site');
    const before = await count();

    const response = JSON.stringify({
      id: 'unknown',
      rawId: 'unknown',
      type: 'public-key',
      response: { clientDataJSON: 'e30', authenticatorData: 'AA', signature: 'AA' },
    });
    assert.equal(await signInWithPasskey(ctx.store(), { binding: 'form-1', rp, response }, now), null);
    assert.equal(await count(), before - 1, 'the challenge is gone, answered or not');
    assert.equal(await signInWithPasskey(ctx.store(), { binding: 'form-2', rp, response }, now), null);

    await passkeySignInOptions(ctx.store(), { binding: 'form-3', rp }, now);
    // Past its life, a challenge is refused, and the next ceremony forgets it.
    const stale = later(CHALLENGE_SECONDS + 1).toISOString();
    await passkeySignInOptions(ctx.store(), { binding: 'form-4', rp }, later(CHALLENGE_SECONDS + 1));
    const ids = await ctx.store().db.selectFrom('webauthn_challenges').select('expires_at').execute();
    assert.ok(ids.every((r) => r.expires_at > stale));
    assert.equal(await count(), 1);
    assert.equal(await takeWebauthnChallenge(ctx.store().db, 'no such id', stale), null);
  });
});
