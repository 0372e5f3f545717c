/**
 * Issue 36 point 1: sentences that were glued from translated pieces (a state word, a feed's share, a
 * link's words, the halves of a search count) are one message each. English reads exactly as it did; the
 * pseudo-locale leaves no English word in any case of them; and a language whose grammar the pieces broke
 * now writes the whole sentence (Polish's plural and negation, German's and Polish's case after "in").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Locale, localeOf } from '../../i18n/locale.js';
import { englishWordsOf } from '../../test/englishWords.js';
import { markup } from './html.js';

const en = localeOf('en');
const XA = localeOf('en-XA');

/** Every case of each converted message, as HTML, in one locale. */
function everyCase(locale: Locale): string[] {
  const out: string[] = [];
  for (const key of ['web.unsubscribe.state.off', 'web.unsubscribe.state.on'] as const) {
    out.push(locale.html(key, markup.strong, markup.strongNames));
  }
  out.push(
    locale.html(
      'web.unsubscribe.state.paused',
      { ...markup.strong, until: '2026-12-01' },
      markup.strongNames,
    ),
  );
  for (const key of [
    'web.settings.digestNow.already',
    'web.settings.digestNow.sooner',
    'web.digestLink.signIn',
    'web.digestLink.archive',
    'web.unsubscribe.hint',
    'web.action.feedsHint',
    'web.action.reading.hint',
    'web.digests.none',
  ] as const) {
    out.push(locale.html(key, markup.link('/x'), markup.linkNames));
  }
  for (const on of ['yes', 'no'] as const) {
    out.push(locale.html('web.feeds.row.originalState', { on, ...markup.strong }, markup.strongNames));
  }
  out.push(
    locale.html(
      'web.newsletters.unsubscribed.link',
      { who: 'Zeta', ...markup.link('/x', true) },
      markup.linkNames,
    ),
    locale.html('web.search.where', { kind: 'earlier', when: '', ...markup.link('/x') }, markup.linkNames),
  );
  for (const all of ['yes', 'no'] as const) {
    for (const n of [0, 1, 2, 5]) {
      for (const byDefault of ['yes', 'no'] as const) {
        for (const key of [
          'web.action.share.shows',
          'web.action.share.unchanged',
          'web.action.share.done',
        ] as const) {
          out.push(locale.t(key, { all, n, byDefault, feed: 'Zeta' }));
        }
      }
      for (const kind of ['fewer', 'more']) out.push(locale.t('web.action.share.next', { kind, all, n }));
    }
  }
  for (const capped of ['yes', 'no'] as const) {
    for (const shown of ['yes', 'no'] as const) {
      for (const total of [1, 3, 25]) {
        out.push(locale.t('web.search.found', { capped, more: total - 1, total, shown, first: 1, last: 20 }));
      }
    }
  }
  for (const [only, never] of [
    ['yes', 'yes'],
    ['yes', 'no'],
    ['no', 'yes'],
  ] as const) {
    out.push(locale.t('web.feeds.row.filters', { only, include: 'zeta', never, exclude: 'zeta' }));
  }
  return out;
}

test('English reads as it did when the sentences were glued', () => {
  assert.equal(
    en.html('web.unsubscribe.state.paused', { ...markup.strong, until: 'U' }, markup.strongNames),
    'Your Tidings digest emails are <strong>paused</strong> until U; then they start again.',
  );
  assert.equal(
    en.html('web.settings.digestNow.already', markup.link('/digests/3?token=a&b'), markup.linkNames),
    'Today has its digest already (<a href="/digests/3?token=a&amp;b">read it</a>), and Tidings builds one digest a day.',
  );
  assert.equal(
    en.html('web.digestLink.signIn', markup.link('/sign-in'), markup.linkNames),
    '<a href="/sign-in">Sign in</a> to see your digests.',
  );
  assert.equal(
    en.html(
      'web.search.where',
      { kind: 'earlier', when: '', ...markup.link('/digests/1') },
      markup.linkNames,
    ),
    'In the digest of <a href="/digests/1">an earlier day</a>',
  );
  assert.equal(
    en.html('web.newsletters.unsubscribed.link', { who: 'W', ...markup.link('https://w.example/', true) }, [
      ...markup.linkNames,
    ]),
    'To unsubscribe from W, open <a href="https://w.example/" rel="noopener noreferrer">its unsubscribe page</a> and follow its steps.',
  );
  assert.equal(
    en.html('web.feeds.row.originalState', { on: 'no', ...markup.strong }, markup.strongNames),
    'Reading the original pages: <strong>off</strong>',
  );
  const share = { feed: 'F', n: 3 };
  assert.equal(
    en.t('web.action.share.shows', { ...share, all: 'no', byDefault: 'yes' }),
    'Each digest shows up to 3 of its entries (the default) from “F”.',
  );
  assert.equal(
    en.t('web.action.share.done', { ...share, all: 'yes', byDefault: 'no' }),
    'Done: each digest shows all of its entries from “F”.',
  );
  assert.equal(
    en.t('web.action.share.next', { kind: 'fewer', all: 'no', n: 0 }),
    'With fewer it shows none of its entries; the rest of its items are counted on one line, “+N more from”, and stay on the digest’s web page.',
  );
  const found = { more: 0, first: 1, last: 20 };
  assert.equal(
    en.t('web.search.found', { ...found, capped: 'no', total: 1, shown: 'no' }),
    '1 link found, best match first.',
  );
  assert.equal(
    en.t('web.search.found', { ...found, capped: 'yes', more: 1000, total: 1001, shown: 'yes' }),
    'More than 1000 links found, 1–20 shown, newest first (add a word to rank them).',
  );
  assert.equal(
    en.t('web.feeds.row.filters', { only: 'yes', include: 'a', never: 'yes', exclude: 'b' }),
    'Filters: only items matching a; never items matching b',
  );
  assert.equal(
    en.t('web.feeds.row.filters', { only: 'no', include: '', never: 'yes', exclude: 'b' }),
    'Filters: never items matching b',
  );
});

test('en-XA: no English word in any case of them; the markup stays around its words', () => {
  const cases = everyCase(XA);
  for (const rendered of cases) assert.deepEqual(englishWordsOf(rendered, ['Zeta', 'zeta']), [], rendered);
  const signIn = XA.html('web.digestLink.signIn', markup.link('/sign-in'), markup.linkNames);
  assert.match(signIn, /^<a href="\/sign-in">[^<]+<\/a> [^<]+$/);
});

test('every language writes every case, its markup balanced', () => {
  for (const code of ['ar', 'de', 'es', 'fr', 'it', 'ja', 'zh-Hans', 'pt-BR', 'nl', 'pl']) {
    for (const rendered of everyCase(localeOf(code))) {
      assert.equal(rendered.split('<a ').length, rendered.split('</a>').length, `${code}: ${rendered}`);
      assert.equal(
        rendered.split('<strong>').length,
        rendered.split('</strong>').length,
        `${code}: ${rendered}`,
      );
      assert.doesNotMatch(rendered, /[{}]|<a href="\/x"><\/a>/, `${code}: ${rendered}`);
    }
  }
});

test('a language’s grammar in the whole sentence: Polish plurals and negation, the case after “in”', () => {
  const pl = localeOf('pl');
  assert.equal(
    pl.html('web.search.where', { kind: 'earlier', when: '', linkStart: '', linkEnd: '' }, markup.linkNames),
    'W jednym z wcześniejszych przeglądów',
  );
  const share = (n: number) =>
    pl.t('web.action.share.shows', { all: 'no', n, byDefault: 'no', feed: 'Zeta' });
  assert.equal(share(2), 'Każdy przegląd pokazuje najwyżej 2 wpisy z „Zeta”.');
  assert.equal(share(5), 'Każdy przegląd pokazuje najwyżej 5 wpisów z „Zeta”.');
  assert.equal(share(0), 'Żaden przegląd nie pokazuje wpisów z „Zeta”.');
  assert.equal(
    pl.html('web.unsubscribe.hint', markup.link('/settings'), markup.linkNames),
    'Kiedy przychodzą przeglądy i nie tylko, zmienisz w <a href="/settings">Ustawieniach</a>.',
  );
  assert.equal(
    localeOf('de').html('web.unsubscribe.hint', markup.link('/settings'), markup.linkNames),
    'Wann Zusammenfassungen kommen und mehr stellst du in den <a href="/settings">Einstellungen</a> ein.',
  );
  assert.equal(
    localeOf('ja').html('web.digestLink.signIn', markup.link('/sign-in'), markup.linkNames),
    'ダイジェストを見るには<a href="/sign-in">ログイン</a>してください。',
  );
});
