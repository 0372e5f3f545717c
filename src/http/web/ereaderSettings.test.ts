import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { accountById } from '../../store/accounts.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { type SignInFormState, openSignInForm, postForm, signInServer } from '../../test/signInHttp.js';

/**
 * Settings' e-reader address and reading-list resurfacing over real HTTP on loopback: set, refused (the
 * address as the email is), cleared; CSRF kept.
 */
await describeEachEngine('web app: the e-reader address', (ctx) => {
  let app: FastifyInstance;
  let base: string;
  let accountId: number;
  let session: SignInFormState;

  const cookiesOf = (headers: Headers) =>
    headers
      .getSetCookie()
      .map((line) => line.split(';')[0] ?? '')
      .join('; ');

  /** The settings form as a browser holds it once signed in: its cookies and the page's token. */
  async function settingsForm(cookie: string): Promise<{ state: SignInFormState; body: string }> {
    const res = await fetch(`${base}/settings`, { headers: { accept: 'text/html', cookie } });
    const body = await res.text();
    assert.equal(res.status, 200, body);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(body)?.[1];
    assert.ok(csrf !== undefined);
    return { state: { cookie, csrf }, body };
  }

  const save = (state: SignInFormState, ereader: string) =>
    postForm(base, '/settings', state, {
      timezone: 'UTC',
      time: '07:00',
      days: 'mon',
      max_items: '100',
      email: 'reader@example.com',
      email_enabled: 'on',
      ereader_email: ereader,
    });

  before(async () => {
    ({ app, base } = await signInServer(ctx.store(), { clock: () => Date.now() }));
    const account = await newAccount(ctx.store());
    accountId = account.id;
    const form = await openSignInForm(base);
    const signedIn = await postForm(base, '/sign-in', form, { key: account.apiKey });
    assert.equal(signedIn.status, 303, signedIn.body);
    session = (await settingsForm(`${form.cookie}; ${cookiesOf(signedIn.headers)}`)).state;
  });
  after(() => app.close());

  const stored = async () => (await accountById(ctx.store().db, accountId))?.ereader_email;

  test('an address is saved and shown in the form', async () => {
    const res = await save(session, ' me_42@kindle.example ');
    assert.equal(res.status, 303, res.body);
    assert.equal(await stored(), 'me_42@kindle.example');
    const { body } = await settingsForm(session.cookie);
    assert.match(body, /id="ereader_email"[^>]*value="me_42@kindle\.example"/);
  });

  test('a bad address is refused as the email address is; nothing changes', async () => {
    const res = await save(session, 'not an address');
    assert.equal(res.status, 400);
    assert.match(res.body, /E-reader address: not an email address/);
    assert.equal(await stored(), 'me_42@kindle.example');
  });

  test('without the form token nothing is saved', async () => {
    const res = await save({ cookie: session.cookie, csrf: 'forged' }, 'other@kindle.example');
    assert.equal(res.status, 403);
    assert.equal(await stored(), 'me_42@kindle.example');
  });

  test('the reading list in each digest: saved, shown, refused past 10 or for another order', async () => {
    const resurface = (state: SignInFormState, fields: Record<string, string>) =>
      postForm(base, '/settings', state, {
        timezone: 'UTC',
        time: '07:00',
        days: 'mon',
        max_items: '100',
        email: 'reader@example.com',
        email_enabled: 'on',
        ereader_email: 'me_42@kindle.example',
        ...fields,
      });
    const { body } = await settingsForm(session.cookie);
    assert.match(body, /id="resurface"[^>]*max="10"[^>]*value="3"/);
    assert.match(body, /<option value="oldest"\s+selected>/);
    const ok = await resurface(session, { resurface: '6', resurface_order: 'random' });
    assert.equal(ok.status, 303, ok.body);
    const saved = await accountById(ctx.store().db, accountId);
    assert.deepEqual([saved?.resurface_count, saved?.resurface_order], [6, 'random']);
    assert.match((await settingsForm(session.cookie)).body, /<option value="random"\s+selected>/);
    const bad = await resurface(session, { resurface: '11', resurface_order: 'sideways' });
    assert.equal(bad.status, 400);
    assert.match(bad.body, /Reading list in each digest: must be at most 10\./);
    assert.match(bad.body, /Reading list order: choose one of the orders offered\./);
    assert.match(bad.body, /id="resurface"[^>]*value="11"[^>]*aria-invalid="true"/);
    const forged = await resurface({ cookie: session.cookie, csrf: 'forged' }, { resurface: '0' });
    assert.equal(forged.status, 403);
    const after = await accountById(ctx.store().db, accountId);
    assert.deepEqual([after?.resurface_count, after?.resurface_order], [6, 'random']);
  });

  test('an empty field removes the address', async () => {
    const res = await save(session, '');
    assert.equal(res.status, 303, res.body);
    assert.equal(await stored(), null);
  });
});
