/**
 * Issue 36: the digest in the account's language. The pseudo-locale en-XA (every letter of the catalogue
 * accented) rendered as the email (HTML and text), the web page, the Atom feed and the EPUB leaves no
 * English word: whatever is not the feeds' own text came from the catalogue. An Arabic account's digest
 * runs right to left in every form, and its EPUB passes EPUBCheck. On both engines: the account's setting
 * is stored, read back by the digest's loaders, and followed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { strFromU8, unzipSync } from 'fflate';
import { changeAccountSettings } from '../accounts/changeSettings.js';
import { parseSettings } from '../accounts/settings.js';
import { accountJson } from '../cli/accountAdmin.js';
import { accountById } from '../store/accounts.js';
import { sampleDigest } from '../test/digestFixtures.js';
import { digestsOf, saveUrl, testDigestDeps } from '../test/digestPipeline.js';
import { epubcheck, epubcheckSkipReason } from '../test/epubcheck.js';
import { englishWordsOf } from '../test/englishWords.js';
import { describeEachEngine, newAccount } from '../test/harness.js';
import { buildDigestNow } from './build.js';
import { bookOf } from './epub/book.js';
import { digestEpub } from './epub/load.js';
import { epubBytes } from './epub/package.js';
import { loadDigest } from './load.js';
import { renderAtom } from './render/atom.js';
import { digestSubject } from './render/common.js';
import { renderEmailHtml, renderWebPage } from './render/html.js';
import { renderText } from './render/text.js';
import { type DigestView, type DigestViewInput, digestView } from './view.js';

const input = (language: string): DigestViewInput => {
  const sample = sampleDigest();
  return {
    ...sample,
    account: { ...sample.account, language },
    token: 'tok',
    digest: { ...sample.digest, shown_count: 4 },
    items: sample.items.map((row, i) => ({
      ...row,
      section: row.source === 'api' ? 'saved' : 'feed',
      position: i,
    })),
    resurfaced: [
      {
        id: 5,
        url: 'https://old.example/essay',
        title: 'An old essay',
        description: 'Worth a second look.',
        saved_at: '2023-11-01T00:00:00.000Z',
        tags: '\nrust\nweb\n',
        state: 'unread',
        page_id: null,
      },
    ],
    mutes: new Map([[2, '2026-11-29T00:00:00.000Z']]),
  };
};

/** Every part a view can show: actions, a cut, "+N more", "Also in", a reading link, a second page. */
function fullView(language: string): DigestView {
  const view = digestView(input(language));
  const groups = view.groups.map((g, i) => ({
    ...g,
    more:
      g.kind === 'feed' ? { count: 3, href: `https://news.example/digests/42?token=tok#more-${i}` } : null,
    actions:
      g.kind === 'feed'
        ? g.feedId === 2
          ? {
              fewer: 'https://news.example/a/f',
              more: 'https://news.example/a/m',
              unmute: 'https://news.example/a/u',
            }
          : {
              fewer: 'https://news.example/a/f',
              more: 'https://news.example/a/m',
              mute: 'https://news.example/a/x',
            }
        : null,
    items: g.items.map((item) => ({
      ...item,
      readingTime: view.locale.minRead(6),
      readHref: 'https://news.example/items/1?token=tok',
      keepHref: 'https://news.example/a/keep',
      alsoIn: [
        { title: 'Other Outlet', href: 'https://other.example/story' },
        { title: 'Third Outlet', href: null },
      ],
      seenIn: 3,
    })),
  }));
  return {
    ...view,
    groups,
    cut: 2,
    page: { number: 1, count: 2, previous: null, next: 'https://news.example/digests/42?page=2' },
    links: {
      ...view.links,
      unsubscribe: 'https://news.example/unsubscribe?token=u',
      previousDigest: 'https://news.example/digests/41',
      nextDigest: null,
    },
  };
}

/** The feeds' and the reader's own text in the fixture: not the catalogue's to translate. */
const CONTENT = [
  'Ada <Lovelace> & "friends"',
  'Europe/Berlin',
  'Saved first',
  'Zeta <script>alert("z")</script> news',
  'Zeta Weekly',
  '" onmouseover="alert(1)',
  'Alpha older',
  'Alpha newer',
  'alpha blog',
  'Zeta summary & more',
  'Middle Feed',
  'Middle',
  'Other Outlet',
  'Third Outlet',
  'An old essay',
  'Worth a second look.',
  'rust',
  'web',
  'Lorem',
  'ipsum',
  'dolor',
  'sit',
  'amet',
  'www.example.com',
  'example.com',
  'zeta.example',
  'alpha.example',
  'mid.example',
  'old.example',
  'First paragraph. Second & last, with a link.',
  'First paragraph.',
  'Second & last, with a link.',
];

const englishWords = (rendered: string): string[] => englishWordsOf(rendered, CONTENT);

function epubTexts(bytes: Uint8Array): Map<string, string> {
  const files = unzipSync(bytes);
  return new Map(
    Object.entries(files)
      .filter(([name]) => /\.(xhtml|ncx|opf)$/.test(name))
      .map(([name, data]) => [name, strFromU8(data)]),
  );
}

test('the pseudo-locale: the email (HTML and text), web page, Atom feed and EPUB leave no English word', () => {
  const view = fullView('en-XA');
  assert.equal(view.locale.lang, 'en-XA');
  const forms: [string, string][] = [
    ['subject', digestSubject(view)],
    ['email HTML', renderEmailHtml(view)],
    ['email text', renderText(view)],
    ['web page', renderWebPage(view)],
    [
      'Atom',
      renderAtom({
        account: { id: 7, name: 'Ada <Lovelace> & "friends"', created_at: '2026-01-01T00:00:00.000Z' },
        digests: [view],
        feedUrl: 'https://news.example/digests.atom?token=tok',
        baseUrl: 'https://news.example',
        locale: view.locale,
      }),
    ],
    ...[...epubTexts(epubBytes(bookOf(view, new Map())))].map(([name, text]): [string, string] => [
      `EPUB ${name}`,
      text,
    ]),
  ];
  for (const [form, rendered] of forms) {
    assert.deepEqual(englishWords(rendered), [], `${form}:\n${rendered}`);
  }
  // The check sees a word left in English: the same forms in English are full of them.
  const english = fullView('en');
  assert.ok(englishWords(renderEmailHtml(english)).length > 50);
  assert.ok(englishWords(renderText(english)).includes('Unsubscribe'));
  // …and in the pseudo-locale the parts it must check are there: actions, "+N more", Also in, the cut.
  const text = renderText(view);
  for (const part of [
    'digest.action.mute',
    'digest.action.unmute',
    'digest.item.keep',
    'digest.footer.unsubscribe',
  ] as const) {
    assert.ok(text.includes(view.locale.t(part)), part);
  }
  assert.ok(
    text.includes(
      view.locale.t('digest.item.alsoIn', {
        sources: 'Other Outlet <https://other.example/story>, Third Outlet',
      }),
    ),
  );
  assert.ok(text.includes(view.locale.t('digest.group.more', { count: 3, title: 'Zeta Weekly' })));
});

test('English holds its contract lines and dates as they were', () => {
  const view = fullView('en');
  const text = renderText(view);
  assert.ok(text.includes('  Also in: Other Outlet <https://other.example/story>, Third Outlet\n'));
  assert.ok(text.includes('+3 more from Zeta Weekly: https://news.example/digests/42?token=tok#more-'));
  assert.ok(text.startsWith('Tidings — Sunday 22 November 2026\n'));
  assert.match(renderEmailHtml(view), /^<!DOCTYPE html>\n<html lang="en">/);
});

test('Arabic: every form right to left, Arabic words and digits as the locale writes them', async (t) => {
  const view = fullView('ar');
  assert.equal(view.locale.dir, 'rtl');
  assert.match(renderEmailHtml(view), /<html lang="ar" dir="rtl">/);
  assert.match(renderWebPage(view), /<html lang="ar" dir="rtl">/);
  assert.ok(renderText(view).includes('الإعدادات: https://news.example/settings'), renderText(view));
  assert.equal(
    view.dateLabel,
    new Intl.DateTimeFormat('ar', {
      timeZone: 'UTC',
      weekday: 'long',
      day: 'numeric',
      month: 'long',
      year: 'numeric',
    }).format(Date.UTC(2026, 10, 22)),
  );
  const atom = renderAtom({
    account: { id: 7, name: 'A', created_at: '2026-01-01T00:00:00.000Z' },
    digests: [view],
    feedUrl: 'https://news.example/f',
    baseUrl: 'https://news.example',
    locale: view.locale,
  });
  assert.match(atom, /<feed xmlns="http:\/\/www.w3.org\/2005\/Atom" xml:lang="ar">/);
  const bytes = epubBytes(bookOf(view, new Map()));
  const files = epubTexts(bytes);
  const opf = files.get('EPUB/package.opf') ?? '';
  assert.match(opf, /xml:lang="ar"/);
  assert.match(opf, /<dc:language>ar<\/dc:language>/);
  assert.match(opf, /<spine toc="ncx" page-progression-direction="rtl">/);
  assert.match(files.get('EPUB/cover.xhtml') ?? '', /xml:lang="ar" lang="ar" dir="rtl"/);
  assert.match(files.get('EPUB/nav.xhtml') ?? '', /<h1>المحتويات<\/h1>/);
  const skip = epubcheckSkipReason();
  if (skip !== undefined) {
    t.skip(skip);
    return;
  }
  const report = await epubcheck(bytes);
  assert.deepEqual([report.fatals, report.errors, report.warnings], [0, 0, 0], report.output);
});

await describeEachEngine('an account’s language', (ctx) => {
  test('stored by `account set --language`, read by the digest’s loaders, followed by every form', async () => {
    const store = ctx.store();
    const { id } = await newAccount(store);
    await changeAccountSettings(store, id, parseSettings({ language: 'AR' }));
    const account = await accountById(store.db, id);
    assert.equal(account?.language, 'ar');
    assert.match(accountJson(account), /"language":"ar"/);
    await saveUrl(store, id, 'https://example.com/one', 'One');
    assert.equal((await buildDigestNow(testDigestDeps(store), id)).status, 'built');
    const digestId = (await digestsOf(store, id)).at(-1)?.id ?? 0;
    const loaded = await loadDigest(store.db, id, digestId, 'https://tidings.example', { page: 1 });
    assert.equal(loaded?.view.locale.lang, 'ar');
    assert.match(renderWebPage(loaded.view), /<html lang="ar" dir="rtl">/);
    const epub = await digestEpub(store.db, id, digestId, 'https://tidings.example');
    assert.equal(epub?.book.language, 'ar');
    const opf = epubTexts(epub.bytes).get('EPUB/package.opf') ?? '';
    assert.match(opf, /<spine toc="ncx" page-progression-direction="rtl">/);

    // "default" goes back to the operator's language; an unknown code is refused, naming the option.
    await changeAccountSettings(store, id, parseSettings({ language: 'default' }));
    const back = await accountById(store.db, id);
    assert.ok(back !== null);
    assert.equal(back.language, null);
    assert.doesNotMatch(accountJson(back), /language/);
    assert.throws(
      () => parseSettings({ language: 'xx' }),
      /--language: "xx" is not a language Tidings speaks/,
    );
  });
});
