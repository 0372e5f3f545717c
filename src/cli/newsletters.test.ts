import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ingestMessage } from '../newsletters/ingest.js';
import { updateSubscriptionShare } from '../store/subscriptions.js';
import { cliOn } from '../test/cliRun.js';
import { describeEachEngine, newAccount, silentLogger } from '../test/harness.js';
import { TEST_BASE_URL, TEST_INBOUND } from '../test/inbound.js';
import { buttondownLike, mailchimpLike, substackLike } from '../test/newsletterFixtures.js';
import { letterFrom } from '../test/newsletterSenders.js';
import { SmtpTestServer } from '../test/smtpServer.js';

/** `tidings newsletters address|list`, and newsletters' senders in `feed list` and `opml export`. */
await describeEachEngine('newsletters commands', (ctx) => {
  const cli = cliOn(() => ctx.url(), {
    LOG_LEVEL: 'silent',
    TIDINGS_BASE_URL: TEST_BASE_URL,
    TIDINGS_INBOUND_DOMAIN: 'Inbound.Example',
  });

  test('address prints, keeps and rotates the address; list shows the senders; feeds know them', async () => {
    const account = await newAccount(ctx.store());
    const id = String(account.id);
    const plain = await cli('newsletters', 'address', '--account', id);
    assert.equal(plain.code, 0, plain.err.join('\n'));
    const address = plain.out[0] ?? '';
    assert.match(address, /^[a-z2-7]{32}@inbound\.example$/);
    const json = await cli('newsletters', 'address', '--account', id, '--json');
    assert.deepEqual(JSON.parse(json.out[0] ?? ''), { address });
    const rotated = await cli('newsletters', 'address', '--account', id, '--rotate', '--json');
    const fresh = (JSON.parse(rotated.out[0] ?? '') as { address: string }).address;
    assert.notEqual(fresh, address);
    assert.equal((await cli('newsletters', 'address', '--account', id)).out[0], fresh);

    const empty = await cli('newsletters', 'list', '--account', id, '--json');
    assert.deepEqual(JSON.parse(empty.out[0] ?? ''), []);
    const deps = {
      store: ctx.store(),
      log: silentLogger,
      baseUrl: TEST_BASE_URL,
      inbound: TEST_INBOUND,
      queueLimit: 10_000,
    };
    for (const raw of [
      substackLike({ to: fresh }),
      mailchimpLike({ to: fresh }),
      buttondownLike({ to: fresh }),
    ]) {
      assert.equal((await ingestMessage(deps, raw, { recipients: [], via: 'imap' })).outcome, 'stored');
    }
    const list = await cli('newsletters', 'list', '--account', id, '--json');
    assert.equal(list.code, 0, list.err.join('\n'));
    const senders = JSON.parse(list.out[0] ?? '') as Record<string, unknown>[];
    assert.deepEqual(senders.map((s) => [s.name, s.address, s.messages, s.unsubscribe, s.muted]).sort(), [
      ['Harbour Books', 'news@harbourbooks.example', 1, 'one-click', false],
      ['The Slow Letter', 'slowletter@substack.com', 1, 'one-click', false],
      ['Weekly Notes', 'notes@buttondown.example', 1, 'mailto', false],
    ]);
    assert.ok(senders.every((s) => typeof s.id === 'number' && typeof s.lastAt === 'string'));

    // A sender is a subscription of its own: `feed set` tunes it, `feed list` shows it, OPML leaves it out.
    const slow = senders.find((s) => s.name === 'The Slow Letter');
    const tuned = await cli('feed', 'set', '--account', id, String(slow?.id), '--priority', 'high');
    assert.equal(tuned.code, 0, tuned.err.join('\n'));
    // "Mute for a week", as a digest's link sets it.
    const week = new Date(Date.now() + 7 * 24 * 3600 * 1000).toISOString();
    await updateSubscriptionShare(ctx.store().db, account.id, Number(slow?.id), { mutedUntil: week });
    const after = JSON.parse((await cli('newsletters', 'list', '--account', id, '--json')).out[0] ?? '') as {
      name: string;
      muted: boolean;
    }[];
    assert.equal(after.find((s) => s.name === 'The Slow Letter')?.muted, true);
    const feeds = await cli('feed', 'list', '--account', id);
    assert.ok(
      feeds.out.some((l) => l.includes('mailto:slowletter@substack.com') && l.includes('\tnewsletter\t')),
      feeds.out.join('\n'),
    );
    const opml = await cli('opml', 'export', '--account', id);
    assert.equal(opml.code, 0, opml.err.join('\n'));
    assert.doesNotMatch(opml.out.join('\n'), /mailto:/);
  });

  test('without TIDINGS_INBOUND_DOMAIN, or for no such account, a clear refusal', async () => {
    const bare = cliOn(() => ctx.url(), { LOG_LEVEL: 'silent' });
    const account = await newAccount(ctx.store());
    const none = await bare('newsletters', 'address', '--account', String(account.id));
    assert.notEqual(none.code, 0);
    assert.match(none.err.join('\n'), /TIDINGS_INBOUND_DOMAIN/);
    const gone = await cli('newsletters', 'list', '--account', '999999');
    assert.notEqual(gone.code, 0);
    assert.match(gone.err.join('\n'), /no account 999999/);
  });

  test('unsubscribe: a mailto through TIDINGS_SMTP_URL, said and muted; a sender with none; refusals', async () => {
    const smtp = await SmtpTestServer.start();
    try {
      const withSmtp = cliOn(() => ctx.url(), {
        LOG_LEVEL: 'silent',
        TIDINGS_BASE_URL: TEST_BASE_URL,
        TIDINGS_INBOUND_DOMAIN: 'inbound.example',
        TIDINGS_SMTP_URL: smtp.url(),
        TIDINGS_MAIL_FROM: 'Tidings <tidings@tidings.example>',
      });
      const account = await newAccount(ctx.store());
      const id = String(account.id);
      const to = (await withSmtp('newsletters', 'address', '--account', id)).out[0] ?? '';
      const deps = { store: ctx.store(), log: silentLogger, baseUrl: TEST_BASE_URL, inbound: TEST_INBOUND };
      const take = (raw: Buffer) =>
        ingestMessage({ ...deps, queueLimit: 1000 }, raw, { recipients: [], via: 'http' });
      await take(buttondownLike({ to }));
      await take(letterFrom('Quiet <quiet@lists.example>', { to, id: `quiet-${id}` }));
      const list = JSON.parse(
        (await withSmtp('newsletters', 'list', '--account', id, '--json')).out[0] ?? '',
      ) as {
        id: number;
        name: string;
        unsubscribe: string;
      }[];
      const weekly = list.find((s) => s.name === 'Weekly Notes');
      const quiet = list.find((s) => s.name === 'Quiet');
      assert.deepEqual([weekly?.unsubscribe, quiet?.unsubscribe], ['mailto', 'none']);

      const done = await withSmtp('newsletters', 'unsubscribe', '--account', id, String(weekly?.id));
      assert.equal(done.code, 0, done.err.join('\n'));
      assert.match(done.out.join('\n'), /an unsubscribe message was sent to unsubscribe@buttondown\.example/);
      assert.match(done.out.join('\n'), /The sender is muted/);
      assert.deepEqual(smtp.messages.at(-1)?.to, ['unsubscribe@buttondown.example']);

      const none = await withSmtp('newsletters', 'unsubscribe', '--account', id, String(quiet?.id), '--json');
      assert.equal(none.code, 0, none.err.join('\n'));
      assert.deepEqual(JSON.parse(none.out[0] ?? ''), { how: 'none', target: null, failed: [], muted: true });
      const after = JSON.parse(
        (await withSmtp('newsletters', 'list', '--account', id, '--json')).out[0] ?? '',
      ) as {
        muted: boolean;
      }[];
      assert.deepEqual(
        after.map((s) => s.muted),
        [true, true],
      );
      assert.equal(smtp.messages.length, 1, 'only the mailto sent mail');

      const unknown = await withSmtp('newsletters', 'unsubscribe', '--account', id, '999999');
      assert.notEqual(unknown.code, 0);
      assert.match(unknown.err.join('\n'), /no newsletter sender 999999/);
      const bad = await withSmtp('newsletters', 'unsubscribe', '--account', id, 'abc');
      assert.equal(bad.code, 2);
    } finally {
      await smtp.close();
    }
  });
});
