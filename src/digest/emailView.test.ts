import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { runCli } from '../cli/run.js';
import { parseFeed } from '../feeds/parse/parse.js';
import type { AccountId } from '../accounts/authorize.js';
import { updateAccountSettings } from '../store/accounts.js';
import {
  RecordingMailer,
  TestClock,
  digestsOf,
  queueFeedItem,
  saveUrl,
  setEmail,
  testDigestDeps,
} from '../test/digestPipeline.js';
import { describeEachEngine, newAccount, testServer } from '../test/harness.js';
import { buildDigestNow } from './build.js';
import { deliverDueDigests } from './deliver.js';
import { ensureDigestToken } from './token.js';

/*
 * Issue 33, point 2: the Atom feed and `tidings digest show` render the digest that was e-mailed — the same
 * chosen view (sections, top stories, "Also in:", "+N more from" lines linking to the web page), cut to a
 * size the same way, ending with what is left and where — never the first 100 items of the digest in
 * queue order. Through the real pipeline on both engines: the build, the e-mail as sent, the Atom feed as
 * served, the command as run.
 */

const BASE = 'https://tidings.example';
/** testServer's base URL: the Atom feed's links start with it. */
const SERVER_BASE = 'http://127.0.0.1:8080';
const PUBLISHED = '2026-11-23T05:00:00.000Z';

/** The entries' titles of a digest's markup (email or Atom entry), in order. */
const titlesOf = (html: string): string[] =>
  [...html.matchAll(/class="td-link td-title" href="[^"]*" dir="auto" style="[^"]*">([^<]*)<\/a>/g)].map(
    (m) => m[1] ?? '',
  );

/** Its "+N more from …" lines, in order. */
const moreLinesOf = (html: string): string[] =>
  [...html.matchAll(/>(\+\d+ more from [^<]*)</g)].map((m) => m[1] ?? '');

/**
 * The e-mail's text part without what only an e-mail has: its private action links and their lines, the
 * unsubscribe line, the action token its links carry on; runs of blank lines as one (these leave some).
 */
function withoutPrivateLinks(text: string): string {
  return text
    .split('\n')
    .filter((l) => !l.includes('/digest-actions/') && !l.startsWith('Unsubscribe: '))
    .join('\n')
    .replace(/&action_token=[^#\s>]*/g, '')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd();
}

await describeEachEngine('the Atom feed and digest show render the e-mail’s view', (ctx) => {
  let app: FastifyInstance;
  before(async () => {
    app = testServer(ctx.store());
    await app.ready();
  });
  after(() => app.close());

  const cli = async (...args: string[]): Promise<string> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(args, {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      env: { DATABASE_URL: ctx.url(), LOG_LEVEL: 'silent', TIDINGS_BASE_URL: BASE },
    });
    assert.equal(code, 0, err.join('\n'));
    return out.join('\n');
  };

  /** Builds and e-mails the account's digest at `at`: the digest's id and the message sent. */
  const buildAndSend = async (accountId: AccountId, at: string) => {
    const clock = new TestClock(at);
    const mailer = new RecordingMailer();
    const deps = testDigestDeps(ctx.store(), { now: clock.now, mailer });
    assert.equal((await buildDigestNow(deps, accountId)).status, 'built');
    await deliverDueDigests(deps, { accountId });
    const digest = (await digestsOf(ctx.store(), accountId)).at(-1);
    const mail = mailer.sent.at(-1);
    assert.ok(digest !== undefined && mail !== undefined);
    return { digest, mail };
  };

  const atomEntryOf = async (accountId: AccountId): Promise<string> => {
    const token = await ensureDigestToken(ctx.store().db, accountId);
    const res = await app.inject({ url: `/digests.atom?token=${token ?? ''}` });
    assert.equal(res.statusCode, 200);
    const [entry] = parseFeed(Buffer.from(res.body)).items;
    assert.ok(entry !== undefined);
    return entry.contentHtml ?? '';
  };

  test('a digest of 206 items: its Atom entry and digest show hold the e-mail’s entries and "+N more" lines', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    await setEmail(store, account.id, 'reader@example.org');
    for (let i = 0; i < 6; i++) await saveUrl(store, account.id, `https://mine.example/${i}`, `Mine ${i}`);
    for (let i = 0; i < 148; i++) {
      await queueFeedItem(store, account.id, {
        feedUrl: 'https://busy.example/feed',
        feedTitle: 'Busy News',
        url: `https://busy.example/${i}`,
        title: `Busy headline ${i}`,
        summary: 'A summary that goes on for a while. '.repeat(5),
        published: PUBLISHED,
      });
    }
    for (let f = 0; f < 10; f++) {
      for (let i = 0; i < 5; i++) {
        await queueFeedItem(store, account.id, {
          feedUrl: `https://quiet${f}.example/feed`,
          feedTitle: `Quiet ${f}`,
          url: `https://quiet${f}.example/${i}`,
          title: `Quiet ${f} post ${i}`,
          published: PUBLISHED,
        });
      }
    }
    // One story two feeds carry: a top story, the other feed on its "Also in:" line.
    await queueFeedItem(store, account.id, {
      feedUrl: 'https://quiet1.example/feed',
      feedTitle: 'Quiet 1',
      url: 'https://quiet1.example/volcano',
      title: 'Volcano erupts near Reykjavik airport overnight',
      published: PUBLISHED,
    });
    await queueFeedItem(store, account.id, {
      feedUrl: 'https://quiet2.example/feed',
      feedTitle: 'Quiet 2',
      url: 'https://quiet2.example/volcano',
      title: 'Reykjavik airport closed as volcano erupts overnight',
      published: PUBLISHED,
    });
    const { digest, mail } = await buildAndSend(account.id, '2026-11-23T07:00:00Z');
    assert.equal(digest.item_count, 206);
    assert.match(mail.text, /^TOP STORIES$/m);
    assert.match(mail.text, /^\s*Also in: Quiet \d <https:\/\/quiet\d\.example\/volcano>$/m);
    const emailed = titlesOf(mail.html);
    assert.equal(emailed.length, digest.shown_count, 'the e-mail shows its entries, whole');
    assert.ok(emailed.length < 100, `${emailed.length} entries`);
    const more = moreLinesOf(mail.html);
    assert.ok(more.includes('+145 more from Busy News'), more.join('\n'));

    const entry = await atomEntryOf(account.id);
    assert.deepEqual(titlesOf(entry), emailed, 'the Atom entry: the same entries, in the same order');
    assert.deepEqual(moreLinesOf(entry), more, 'and the same "+N more from" lines');
    assert.ok(entry.includes(`href="${SERVER_BASE}/digests/${digest.id}?token=`), 'linking to the web page');
    assert.doesNotMatch(entry, /more entries/, 'nothing was cut');
    assert.match(entry, />Top stories</);
    assert.match(entry, /Also in: <a [^>]*>Quiet \d<\/a>/);

    const shown = await cli('digest', 'show', String(digest.id));
    assert.equal(
      withoutPrivateLinks(shown),
      withoutPrivateLinks(mail.text),
      'digest show prints the e-mail as sent',
    );
    assert.match(shown, new RegExp(`^${emailed.length} entries · about \\d+ minutes? to read$`, 'm'));
    const html = await cli('digest', 'show', String(digest.id), '--format', 'html');
    assert.deepEqual(titlesOf(html), emailed);
    assert.deepEqual(moreLinesOf(html), more);
  });

  test('a digest of 100 saved links and 45 feed items: digest show has the feeds as the e-mail does', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    await setEmail(store, account.id, 'saver@example.org');
    for (let i = 0; i < 100; i++) await saveUrl(store, account.id, `https://mine.example/${i}`, `Mine ${i}`);
    for (let f = 0; f < 3; f++) {
      for (let i = 0; i < 15; i++) {
        await queueFeedItem(store, account.id, {
          feedUrl: `https://feed${f}.example/feed`,
          feedTitle: `Feed ${f}`,
          url: `https://feed${f}.example/${i}`,
          title: `Feed ${f} post ${i}`,
          published: PUBLISHED,
        });
      }
    }
    const { digest, mail } = await buildAndSend(account.id, '2026-11-23T07:00:00Z');
    assert.equal(digest.item_count, 145);
    const shown = await cli('digest', 'show', String(digest.id));
    assert.equal(withoutPrivateLinks(shown), withoutPrivateLinks(mail.text));
    for (let f = 0; f < 3; f++) {
      assert.match(shown, new RegExp(`^FEED ${f}$`, 'm'), `the group of Feed ${f}`);
      assert.match(shown, new RegExp(`^\\+\\d+ more from Feed ${f}: `, 'm'));
    }
    assert.deepEqual(titlesOf(await atomEntryOf(account.id)), titlesOf(mail.html));
  });

  test('past its size, the Atom entry is cut as the e-mail is, ending with what is left and where', async () => {
    const store = ctx.store();
    const account = await newAccount(store);
    await setEmail(store, account.id, 'many@example.org');
    await store.db
      .transaction()
      .execute((trx) => updateAccountSettings(trx, account.id, { digestMaxItems: 400 }));
    for (let i = 0; i < 400; i++) {
      await saveUrl(
        store,
        account.id,
        `https://saved.example/${i}/${'segment/'.repeat(20)}`,
        `Saved link number ${i} with a long title ${'word '.repeat(20)}`,
      );
    }
    const { digest, mail } = await buildAndSend(account.id, '2026-11-24T07:00:00Z');
    assert.equal(digest.shown_count, 400);

    const entry = await atomEntryOf(account.id);
    const titles = titlesOf(entry);
    assert.ok(titles.length > 50 && titles.length < 400, `${titles.length} entries`);
    // The first entries, in the e-mail's order (the e-mail, with its private links, holds fewer).
    assert.ok(
      titles.every((t, i) => t.startsWith(`Saved link number ${i} `)),
      'the first entries, in order',
    );
    assert.ok(titlesOf(mail.html).length <= titles.length);
    assert.ok(Buffer.byteLength(entry) <= 100_000, `${Buffer.byteLength(entry)} bytes`);
    const web = `${SERVER_BASE}/digests/${digest.id}?token=`;
    const closing = new RegExp(`…and (\\d+) more entries: <a [^>]*href="${web.replace(/[.?]/g, '\\$&')}`);
    const m = closing.exec(entry);
    assert.ok(m !== null, 'it ends with how many are left and a link to the web page');
    assert.equal(Number(m[1]) + titles.length, 400);

    // digest show: the e-mail's cut, its closing line, within the e-mail's size.
    const text = (await cli('digest', 'show', String(digest.id))).replace(/\s+/g, ' ');
    assert.match(
      text,
      /…and \d+ more entries, cut to keep this email whole\. Read the whole digest on the web:/,
    );
    const html = await cli('digest', 'show', String(digest.id), '--format', 'html');
    assert.ok(Buffer.byteLength(html) < 102 * 1024, `${Buffer.byteLength(html)} bytes`);
    assert.match(html, /…and \d+ more entries, cut to keep this email whole\./);
  });
});
