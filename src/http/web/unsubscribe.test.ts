import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { simpleParser } from 'mailparser';
import { grantAccount } from '../../accounts/authorize.js';
import { changeAccountSettings } from '../../accounts/changeSettings.js';
import { buildDueDigests } from '../../digest/build.js';
import type { DigestDeps } from '../../digest/deps.js';
import { type Mailer, createMailer } from '../../digest/mail.js';
import { runDigestPass } from '../../digest/worker.js';
import { accountById } from '../../store/accounts.js';
import {
  TestClock,
  digestsOf,
  saveUrl,
  setDueAt,
  setEmail,
  testDigestDeps,
} from '../../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { SmtpTestServer } from '../../test/smtpServer.js';
import { WebClient, webServer } from '../../test/webClient.js';

/**
 * One-click unsubscribe end to end: a digest emailed through a real SMTP server carries the RFC 8058
 * headers with a private link; that link's page (GET) changes nothing; its POST turns email off without
 * any cookie; pause and resume; revoked and foreign tokens.
 */

const DAY = 24 * 60 * 60_000;
const MAILTO = 'unsubscribe@tidings.example';

await describeEachEngine('one-click unsubscribe', (ctx) => {
  let smtp: SmtpTestServer;
  let mailer: Mailer;
  let app: FastifyInstance;
  const clock = new TestClock('2026-11-23T06:00:00Z');

  before(async () => {
    smtp = await SmtpTestServer.start();
    const m = createMailer(
      { smtpUrl: smtp.url(), mailFrom: 'Tidings <digest@tidings.example>', unsubscribeMailto: MAILTO },
      { timeouts: { connectMs: 2000, greetingMs: 2000, socketMs: 2000 } },
    );
    assert.ok(m !== null);
    mailer = m;
    app = webServer(ctx.store(), { baseUrl: 'https://tidings.example', now: clock.now });
    await app.ready();
  });
  after(async () => {
    await app.close();
    mailer.close();
    await smtp.close();
  });
  beforeEach(() => {
    smtp.messages.length = 0;
  });

  const deps = (): DigestDeps => testDigestDeps(ctx.store(), { now: clock.now, mailer });

  /** An account with an address, a link queued and its digest due now; its id. */
  async function reader(): Promise<{ id: number; apiKey: string }> {
    const account = await newAccount(ctx.store());
    await setEmail(ctx.store(), account.id, `reader${account.id}@example.org`);
    return account;
  }

  /** Queues a link, makes the digest due now, runs a pass; the raw messages it sent. */
  async function digestDay(accountId: number): Promise<string[]> {
    await saveUrl(ctx.store(), accountId, `https://news.example/${clock.now().getTime()}`);
    await setDueAt(ctx.store(), accountId, clock.now().toISOString());
    const before = smtp.messages.length;
    await runDigestPass(deps(), { accountId });
    return smtp.messages.slice(before).map((m) => m.raw.toString('utf8'));
  }

  /** The header block of a raw message, unfolded (a long header arrives on several lines). */
  const headersOf = (raw: string): string => (raw.split('\r\n\r\n')[0] ?? '').replace(/\r\n(?=[ \t])/g, '');

  /** The unsubscribe path in the List-Unsubscribe header of a raw message. */
  function unsubscribePath(raw: string): string {
    const header = /^List-Unsubscribe: (.*)$/im.exec(headersOf(raw))?.[1];
    assert.ok(header !== undefined, 'a List-Unsubscribe header');
    const url = /<(https:\/\/tidings\.example\/unsubscribe\/[A-Za-z0-9_-]{43})>/.exec(header)?.[1];
    assert.ok(url !== undefined, header);
    return new URL(url).pathname;
  }

  const bare = (method: 'GET' | 'POST' | 'HEAD', url: string, payload?: string, type?: string) =>
    app.inject({
      method,
      url,
      headers: {
        accept: 'text/html',
        ...(payload === undefined ? {} : { 'content-type': type ?? 'application/x-www-form-urlencoded' }),
      },
      ...(payload === undefined ? {} : { payload }),
    });

  /** An account emailed its first digest: its id and key, that email and its unsubscribe path. */
  async function firstEmail() {
    const account = await reader();
    clock.advance(DAY);
    const [raw] = await digestDay(account.id);
    assert.ok(raw !== undefined, 'the digest was emailed');
    return { ...account, raw, path: unsubscribePath(raw) };
  }

  const emailEnabled = async (id: number) => (await accountById(ctx.store().db, id))?.email_enabled;

  test('each email carries List-Unsubscribe (mailto and a private https link) and List-Unsubscribe-Post', async () => {
    const { id, raw, path } = await firstEmail();
    const headers = headersOf(raw);
    assert.match(
      headers,
      new RegExp(
        `^List-Unsubscribe: <mailto:${MAILTO}\\?subject=unsubscribe>,\\s*<https://tidings\\.example${path}>$`,
        'im',
      ),
    );
    assert.match(headers, /^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/im);
    const parsed = await simpleParser(Buffer.from(raw));
    assert.ok((parsed.text ?? '').includes(`Unsubscribe: https://tidings.example${path}`), 'the text footer');
    assert.ok(typeof parsed.html === 'string' && parsed.html.includes(`https://tidings.example${path}`));
    // Only the hash is stored.
    const token = path.split('/')[2] ?? '';
    const rows = await ctx
      .store()
      .db.selectFrom('unsubscribe_tokens')
      .selectAll()
      .where('account_id', '=', id)
      .execute();
    assert.equal(rows.length, 1);
    assert.ok(rows.every((r) => r.token_hash !== token && /^[0-9a-f]{64}$/.test(r.token_hash)));

    // The next email has a link of its own; both work.
    clock.advance(DAY);
    const [second] = await digestDay(id);
    assert.ok(second !== undefined);
    assert.notEqual(unsubscribePath(second), path);
    assert.equal((await bare('GET', path)).statusCode, 200);
    assert.equal((await bare('GET', unsubscribePath(second))).statusCode, 200);
  });

  test('GET shows the page, reveals nothing of the account, and changes nothing', async () => {
    const { id, path } = await firstEmail();
    for (const method of ['GET', 'HEAD', 'GET'] as const) {
      const res = await bare(method, path);
      assert.equal(res.statusCode, 200);
    }
    const page = await bare('GET', path);
    assert.match(page.body, /Your Tidings digest emails are <strong>on<\/strong>/);
    assert.doesNotMatch(page.body, new RegExp(`reader${id}|test \\d+`), 'no address, no account name');
    assert.match(page.body, /<form class="inline" method="post" action="\/unsubscribe\/[^"]+">/);
    assert.match(page.body, />Unsubscribe<\/button>/);
    assert.match(page.body, />Pause for a week<\/button>/);
    assert.equal(page.headers['cache-control'], 'no-store');
    assert.equal(page.headers['referrer-policy'], 'no-referrer');
    assert.equal(await emailEnabled(id), true, 'a GET changed nothing');
  });

  test('the one-click POST, without any cookie or CSRF token, turns email off: the next digest is built, not mailed', async () => {
    const { id, path } = await firstEmail();
    const res = await bare('POST', path, 'List-Unsubscribe=One-Click');
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.body, /you are unsubscribed/);
    assert.match(res.body, /emails are <strong>off<\/strong>/);
    assert.equal(await emailEnabled(id), false);

    clock.advance(DAY);
    assert.deepEqual(await digestDay(id), [], 'not mailed');
    const digests = await digestsOf(ctx.store(), id);
    assert.equal(digests.length, 2, 'still built');
    assert.equal(digests.at(-1)?.delivery, 'not_emailed');
  });

  test('a mail provider’s multipart one-click POST works too; a digest built before it is not sent after', async () => {
    const { id, path } = await firstEmail();
    // A digest built, not yet sent, when the reader clicks.
    clock.advance(DAY);
    await saveUrl(ctx.store(), id, 'https://news.example/pending');
    await setDueAt(ctx.store(), id, clock.now().toISOString());
    await buildDueDigests(deps(), { accountId: id });
    const boundary = 'xYzBoundary';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`;
    const res = await bare('POST', path, body, `multipart/form-data; boundary=${boundary}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(await emailEnabled(id), false);
    await runDigestPass(deps(), { accountId: id });
    assert.equal(smtp.messages.length, 1, 'only the first email');
  });

  test('pause for a week, then the emails come back by themselves; resume ends a pause at once', async () => {
    const { id, path } = await firstEmail();
    const paused = await bare('POST', path, 'action=pause');
    assert.equal(paused.statusCode, 200);
    const until = new Date(clock.now().getTime() + 7 * DAY).toISOString();
    assert.ok(paused.body.includes(`datetime="${until}"`), 'says until when');
    assert.equal((await accountById(ctx.store().db, id))?.email_paused_until, until);

    clock.advance(DAY);
    assert.deepEqual(await digestDay(id), [], 'paused: built, not mailed');
    clock.advance(6 * DAY + 60_000);
    assert.equal((await digestDay(id)).length, 1, 'a week on: mailed again');

    const again = await bare('POST', path, 'action=pause');
    assert.equal(again.statusCode, 200);
    const resumed = await bare('POST', path, 'action=resume');
    assert.equal(resumed.statusCode, 200);
    assert.match(resumed.body, /emails are <strong>on<\/strong>/);
    const account = await accountById(ctx.store().db, id);
    assert.deepEqual([account?.email_enabled, account?.email_paused_until], [true, null]);
    clock.advance(DAY);
    assert.equal((await digestDay(id)).length, 1, 'resumed: mailed');

    // After unsubscribing, resume turns the emails on again; an unknown action changes nothing.
    await bare('POST', path, 'action=off');
    assert.equal(await emailEnabled(id), false);
    const odd = await bare('POST', path, 'action=delete-everything');
    assert.equal(odd.statusCode, 400);
    assert.equal(await emailEnabled(id), false);
    await bare('POST', path, 'action=resume');
    assert.equal(await emailEnabled(id), true);
  });

  test('Settings shows a pause and can end it (a signed-in, CSRF-checked form)', async () => {
    const account = await firstEmail();
    assert.equal((await bare('POST', account.path, 'action=pause')).statusCode, 200);
    const client = new WebClient(app);
    await client.signIn(account.apiKey);
    const settings = await client.get('/settings');
    assert.match(settings.body, /Your digest emails are paused from an unsubscribe link until/);
    const forged = await client.post('/settings/resume-email', { _csrf: 'x'.repeat(43) });
    assert.equal(forged.statusCode, 403);
    assert.notEqual((await accountById(ctx.store().db, account.id))?.email_paused_until, null);
    const resumed = await client.post('/settings/resume-email');
    assert.equal(resumed.statusCode, 303);
    assert.equal((await accountById(ctx.store().db, account.id))?.email_paused_until, null);
    assert.doesNotMatch((await client.get('/settings')).body, /paused from an unsubscribe link/);
  });

  test('a reset (Settings) or a new address revokes the links: 404, as for any unknown token', async () => {
    const account = await firstEmail();
    const { path } = account;
    const unknown = await bare('GET', `/unsubscribe/${'A'.repeat(43)}`);
    assert.equal(unknown.statusCode, 404);
    assert.equal((await bare('GET', '/unsubscribe/short')).statusCode, 404);

    const client = new WebClient(app);
    await client.signIn(account.apiKey);
    await client.get('/settings');
    const forged = await client.post('/settings/reset-unsubscribe', { _csrf: 'x'.repeat(43) });
    assert.equal(forged.statusCode, 403, 'the reset form is CSRF-checked');
    assert.equal((await bare('GET', path)).statusCode, 200);
    const reset = await client.post('/settings/reset-unsubscribe');
    assert.equal(reset.statusCode, 303);
    assert.equal(reset.headers.location, '/settings?notice=unsubscribe_reset');
    const revoked = await bare('GET', path);
    assert.equal(revoked.statusCode, 404);
    assert.equal(revoked.body, unknown.body, 'a revoked token looks like any unknown address');
    assert.equal((await bare('POST', path, 'List-Unsubscribe=One-Click')).statusCode, 404);
    assert.equal(await emailEnabled(account.id), true);

    // A new address revokes too.
    clock.advance(DAY);
    const [next] = await digestDay(account.id);
    assert.ok(next !== undefined);
    const nextPath = unsubscribePath(next);
    assert.equal((await bare('GET', nextPath)).statusCode, 200);
    await changeAccountSettings(ctx.store(), grantAccount(account.id), { email: 'new@example.org' });
    assert.equal((await bare('GET', nextPath)).statusCode, 404);
  });

  test('the token of account A never touches account B', async () => {
    const a = await reader();
    const b = await reader();
    clock.advance(DAY);
    const [rawA] = await digestDay(a.id);
    const [rawB] = await digestDay(b.id);
    assert.ok(rawA !== undefined && rawB !== undefined);
    assert.equal((await bare('POST', unsubscribePath(rawA), 'List-Unsubscribe=One-Click')).statusCode, 200);
    assert.equal(await emailEnabled(a.id), false);
    assert.equal(await emailEnabled(b.id), true);
    // B resets its links: A's still work.
    const client = new WebClient(app);
    await client.signIn(b.apiKey);
    await client.get('/settings');
    await client.post('/settings/reset-unsubscribe');
    assert.equal((await bare('GET', unsubscribePath(rawB))).statusCode, 404);
    assert.equal((await bare('GET', unsubscribePath(rawA))).statusCode, 200);
    // Signed in as B, A's link still acts on A only.
    const res = await app.inject({
      method: 'POST',
      url: unsubscribePath(rawA),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `tidings_session=${client.cookies.get('tidings_session') ?? ''}`,
      },
      payload: 'action=resume',
    });
    assert.equal(res.statusCode, 200);
    assert.equal(await emailEnabled(a.id), true);
    assert.equal(await emailEnabled(b.id), true);
  });
});
