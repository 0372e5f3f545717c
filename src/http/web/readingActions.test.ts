import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildDueDigests } from '../../digest/build.js';
import { deliverDueDigests } from '../../digest/deliver.js';
import { type ReadingAction, mintActionTokens, readingActionUrl } from '../../digest/actionTokens.js';
import {
  RecordingMailer,
  TestClock,
  digestsOf,
  saveUrl,
  setDueAt,
  setEmail,
  testDigestDeps,
} from '../../test/digestPipeline.js';
import { describeEachEngine, newAccount } from '../../test/harness.js';
import { addReadingItems, offerMarks, offeredUrls } from '../../test/readingFixtures.js';
import { ARTICLE, insertPage } from '../../test/pages.js';
import { webServer } from '../../test/webClient.js';

/**
 * "From your reading list"'s links end to end (issue 27, point 3): the email carries Archive and Keep for
 * tomorrow per item, on the digest's action token; GET describes and changes nothing; POST, without
 * cookie or CSRF token, archives or keeps; Undo puts it back; the item kept comes first in the next
 * digest; another digest's token, or an item this digest did not offer, gets the 404 page.
 */

const DAY = 24 * 60 * 60_000;
const BASE = 'https://tidings.example';

await describeEachEngine('reading-list action links', (ctx) => {
  let app: FastifyInstance;
  const clock = new TestClock('2026-11-23T06:00:00Z');
  before(async () => {
    app = webServer(ctx.store(), { baseUrl: BASE, now: clock.now });
    await app.ready();
  });
  after(() => app.close());
  const store = () => ctx.store();

  /** Builds (and emails, with a mailer) the account's digest of the day; its id. */
  async function nextDigest(accountId: number, mailer: RecordingMailer | null = null): Promise<number> {
    await saveUrl(store(), accountId, `https://own.example/${clock.now().getTime()}`, 'My own link');
    clock.advance(DAY);
    await setDueAt(store(), accountId, clock.now().toISOString());
    const deps = testDigestDeps(store(), { now: clock.now, mailer, mailFrom: 'digest@tidings.example' });
    await buildDueDigests(deps, { accountId });
    if (mailer !== null) await deliverDueDigests(deps, { accountId });
    return (await digestsOf(store(), accountId)).at(-1)?.id ?? 0;
  }

  async function setUp() {
    const account = await newAccount(store());
    const n = account.id;
    const ids = await addReadingItems(
      store(),
      account.id,
      [1, 2, 3, 4].map((i) => ({
        url: `https://read${i}.example/${n}`,
        title: `Saved long ago ${i}`,
        savedAt: `2023-0${i}-01T00:00:00.000Z`,
      })),
    );
    const digestId = await nextDigest(account.id);
    const [token] = await mintActionTokens(store().db, [{ accountId: n, digestId }], clock.now());
    assert.ok(typeof token === 'string');
    const link = (action: ReadingAction, t = token): string => {
      const url = new URL(readingActionUrl(BASE, t, action));
      return url.pathname + url.search;
    };
    return { account, ids, digestId, token, link };
  }

  const bare = (method: 'GET' | 'POST', url: string, payload?: string) =>
    app.inject({
      method,
      url,
      headers: {
        accept: 'text/html',
        ...(payload === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(payload === undefined ? {} : { payload }),
    });
  const stateOf = async (id: number) =>
    (
      await store()
        .db.selectFrom('reading_list')
        .select(['state', 'kept_at'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).state;

  test('the email shows the section with both links; they open the action pages', async () => {
    const account = await newAccount(store());
    await setEmail(store(), account.id, `reader${account.id}@example.org`);
    await addReadingItems(store(), account.id, [
      {
        url: `https://longread.example/${account.id}`,
        title: 'A long read',
        savedAt: '2023-11-01T00:00:00.000Z',
        tags: ['essays'],
        description: 'Why things are as they are.',
      },
    ]);
    const mailer = new RecordingMailer();
    await nextDigest(account.id, mailer);
    const [mail] = mailer.sent;
    assert.ok(mail !== undefined, 'the digest was emailed');
    assert.match(
      mail.text,
      /FROM YOUR READING LIST\n=+\n\n\* A long read\n {2}longread\.example · saved 3 years ago · tagged essays\n/,
    );
    const archive = /Archive: (\S+)/.exec(mail.text)?.[1] ?? '';
    const tomorrow = /Keep for tomorrow: (\S+do=tomorrow\S*)/.exec(mail.text)?.[1] ?? '';
    assert.match(
      archive,
      /^https:\/\/tidings\.example\/digest-actions\/[A-Za-z0-9_-]{43}\?do=archive&reading=\d+$/,
    );
    assert.match(tomorrow, /\?do=tomorrow&reading=\d+$/);
    assert.match(mail.html, /From your reading list<\/h2>/);
    assert.ok(mail.html.includes('>A long read</a>'));
    assert.ok(mail.html.includes(`href="${archive.replace(/&/g, '&amp;')}">Archive</a>`));
    const page = await bare('GET', new URL(archive).pathname + new URL(archive).search);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /A long read/);
    assert.match(page.body, />Archive it<\/button>/);
  });

  test('a link whose page was read: "Read it here" opens its reading view; the web page keeps the links', async () => {
    const account = await newAccount(store());
    await setEmail(store(), account.id, `reader${account.id}@example.org`);
    const url = `https://tides${account.id}.example/article`;
    const pageId = await insertPage(store(), { url, ...ARTICLE });
    const [readingId] = await addReadingItems(store(), account.id, [
      { url, title: 'Tides', savedAt: '2024-02-01T00:00:00.000Z' },
    ]);
    await store()
      .db.updateTable('reading_list')
      .set({ page_id: pageId })
      .where('id', '=', readingId ?? 0)
      .execute();
    const mailer = new RecordingMailer();
    await nextDigest(account.id, mailer);
    const text = mailer.sent[0]?.text ?? '';
    const read = /Read it here: (\S+\/items\/\d+\?token=\S+)/.exec(
      text.slice(text.indexOf('FROM YOUR READING LIST')),
    )?.[1];
    assert.ok(read !== undefined, text);
    assert.ok(read.includes(`/items/${pageId}?`));
    const view = await bare('GET', new URL(read).pathname + new URL(read).search);
    assert.equal(view.statusCode, 200);
    assert.ok(view.body.includes('The tide comes in <em>twice</em> a day.'));
    assert.match(text, /Sea Notes · saved 2 years ago · 6 min read/);
    // "Read on the web" carries the e-mail's action token: the page shows the section's links too.
    const web = /Read on the web: (\S+)/.exec(text)?.[1] ?? '';
    const page = await bare('GET', new URL(web).pathname + new URL(web).search);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /From your reading list<\/h2>/);
    assert.match(page.body, /do=archive&amp;reading=\d+">Archive<\/a>/);
    assert.match(page.body, /do=tomorrow&amp;reading=\d+">Keep for tomorrow<\/a>/);
  });

  test('GET changes nothing; POST archives; Undo puts it back to unread', async () => {
    const { ids, link } = await setUp();
    const first = ids[0] ?? 0;
    const url = link({ kind: 'archive', readingId: first });
    const get = await bare('GET', url);
    assert.equal(get.statusCode, 200);
    assert.match(get.body, /Saved long ago 1/);
    assert.equal(await stateOf(first), 'unread', 'GET changed nothing');
    const post = await bare('POST', url, '');
    assert.equal(post.statusCode, 200, post.body);
    assert.match(post.body, /Done: .*Saved long ago 1.* is archived/s);
    assert.equal(await stateOf(first), 'archived');
    assert.match(post.body, /name="undo" value="1"/);
    const again = await bare('POST', url, '');
    assert.match(again.body, /Nothing to change/);
    const undo = await bare('POST', url, 'undo=1');
    assert.equal(undo.statusCode, 200);
    assert.match(undo.body, /Undone\./);
    assert.equal(await stateOf(first), 'unread');
  });

  test('Keep for tomorrow: the next digest offers it first; Undo before then lets it wait its turn', async () => {
    const { account, ids, link } = await setUp();
    const second = ids[1] ?? 0;
    const url = link({ kind: 'tomorrow', readingId: second });
    const get = await bare('GET', url);
    assert.match(get.body, />Keep it for tomorrow<\/button>/);
    assert.equal(
      (await offerMarks(store(), account.id)).get(`https://read2.example/${account.id}`)?.[2],
      null,
    );
    const post = await bare('POST', url, '');
    assert.equal(post.statusCode, 200, post.body);
    const kept = /name="kept" value="([^"]+)"/.exec(post.body)?.[1];
    assert.equal(kept, clock.now().toISOString());
    // Undo, then keep again: the mark is the second one.
    assert.match((await bare('POST', url, `undo=1&kept=${encodeURIComponent(kept)}`)).body, /Undone\./);
    assert.equal(
      (await offerMarks(store(), account.id)).get(`https://read2.example/${account.id}`)?.[2],
      null,
    );
    assert.equal((await bare('POST', url, 'undo=1&kept=yesterday')).statusCode, 400);
    await bare('POST', url, '');
    const next = await nextDigest(account.id);
    assert.deepEqual(await offeredUrls(store(), next), [
      `https://read2.example/${account.id}`,
      `https://read4.example/${account.id}`,
      `https://read1.example/${account.id}`,
    ]);
    // Offered again, the mark is gone: an Undo now has nothing to undo.
    const late = await bare('POST', url, `undo=1&kept=${encodeURIComponent(kept)}`);
    assert.match(late.body, /Nothing to undo/);
  });

  test("another digest's token, an item not offered, a malformed query: the 404 page", async () => {
    const { account, ids, link, token } = await setUp();
    const other = await setUp();
    // The other account's token cannot touch this account's item, nor this token the fourth (not offered).
    const foreign = link({ kind: 'archive', readingId: ids[0] ?? 0 }, other.token);
    assert.equal((await bare('GET', foreign)).statusCode, 404);
    assert.equal((await bare('POST', foreign, '')).statusCode, 404);
    assert.equal(await stateOf(ids[0] ?? 0), 'unread');
    assert.equal((await bare('POST', link({ kind: 'archive', readingId: ids[3] ?? 0 }), '')).statusCode, 404);
    assert.equal(await stateOf(ids[3] ?? 0), 'unread');
    // A later digest of the same account: its token names its own items only.
    const later = await nextDigest(account.id);
    const [laterToken] = await mintActionTokens(
      store().db,
      [{ accountId: account.id, digestId: later }],
      clock.now(),
    );
    assert.ok(typeof laterToken === 'string');
    assert.equal(
      (await bare('GET', link({ kind: 'archive', readingId: ids[2] ?? 0 }, laterToken))).statusCode,
      404,
    );
    assert.equal(
      (await bare('GET', link({ kind: 'archive', readingId: ids[3] ?? 0 }, laterToken))).statusCode,
      200,
    );
    assert.equal((await bare('GET', `/digest-actions/${token}?do=archive&reading=x`)).statusCode, 404);
    assert.equal(
      (await bare('GET', `/digest-actions/${token}?do=burn&reading=${ids[0] ?? 0}`)).statusCode,
      404,
    );
  });
});
