import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  catalogueProblems,
  compileCatalogue,
  pseudoCatalogue,
  readCatalogues,
} from '../../scripts/i18n/catalogues.js';
import { LANGUAGES, catalogueOf, languageOf } from './languages.js';
import { localeOf } from './locale.js';
import { acceptedLanguage, chosenLanguage } from './negotiate.js';
import { pseudoText } from './pseudo.js';

test('every catalogue has every key of English, with valid ICU syntax and the same placeholders', () => {
  const catalogues = readCatalogues();
  assert.ok(catalogues.has('en'));
  assert.deepEqual(catalogueProblems(catalogues), []);
  // Every language Tidings offers has a catalogue, and every catalogue is offered.
  const offered = LANGUAGES.filter((l) => l.pseudo !== true).map((l) => l.code);
  assert.deepEqual([...catalogues.keys()].sort(), [...offered].sort());
});

test('the check names a missing key, a key English lacks, bad syntax, other placeholders and wrong plural keys', () => {
  const en = { a: 'One {name}', b: '{n, plural, one {# link} other {# links}}', c: 'Plain' };
  const problems = catalogueProblems(
    new Map<string, Record<string, string>>([
      ['en', en],
      ['de', { a: 'Ein {nom}', b: '{n, plural, one {# Link} few {# Links} other {# Links}}', extra: 'x' }],
      ['fr', { a: 'Un {name', b: '{n, plural, one {# lien}}', c: '{when, date}' }],
    ]),
  );
  assert.deepEqual(problems, [
    'de: c: missing',
    'de: a: placeholders {nom:string}, en has {name:string}',
    'de: b: {n, plural}: "few" is not a plural category of de',
    'de: extra: not in en.json',
    problems.find((p) => p.startsWith('fr: a: ')),
    'fr: b: {n, plural} has no "other" case',
    'fr: c: {when, date}: only {NAME, number} is supported (format dates in code, through Locale)',
    'fr: c: placeholders {when:number}, en has {}',
  ]);
  assert.match(problems[4] ?? '', /^fr: a: /);
});

test('compiled messages: plurals by the language’s rules, exact matches first, selects, # as a number', () => {
  const source = compileCatalogue(
    'en',
    { m: '{n, plural, =0 {none} one {# item} other {# items}} for {who, select, me {me} other {{who}}}' },
    'test',
  );
  // The messages are made by load(), at a language's first use, not when the module loads.
  assert.match(source, /export const load = \(\) => \(\{/);
  assert.match(source, /export type Catalogue = ReturnType<typeof load>;/);
  const en = localeOf('en');
  assert.equal(
    en.t('digest.subject', { date: 'Sunday 22 November', count: 0 }),
    'Tidings — Sunday 22 November: nothing new',
  );
  assert.equal(en.t('digest.subject', { date: 'D', count: 1 }), 'Tidings — D: 1 new link');
  assert.equal(en.t('digest.subject', { date: 'D', count: 10000 }), 'Tidings — D: 10000 new links');
  assert.equal(en.t('digest.action.fewer', { source: 'sender' }), 'Fewer from this sender');
  assert.equal(en.t('digest.action.fewer', { source: 'feed' }), 'Fewer from this feed');
  assert.equal(en.aboutMinutes(1), 'about 1 minute');
  assert.equal(en.list(['A', 'B', 'C']), 'A, B, C');
});

test('HTML messages escape their own text and the values, and keep the markup they are given', () => {
  const en = localeOf('en');
  assert.equal(
    en.html('digest.action.mutedUntil', { unmute: '<a href="/u">Unmute</a>', until: '<Sat>' }, ['unmute']),
    '<a href="/u">Unmute</a> (muted until &lt;Sat&gt;)',
  );
  assert.equal(
    en.html('digest.footer.whyText', { zone: 'UTC', name: 'a"b' }),
    'Times are in UTC. Tidings account &quot;a&quot;b&quot;.',
  );
});

test('dates: English as before; the pseudo-locale accents what Intl writes', () => {
  const en = localeOf('en');
  assert.equal(en.day('2026-11-22', true), 'Sunday 22 November 2026');
  assert.equal(en.day('2026-11-22', false), 'Sunday 22 November');
  assert.equal(en.time('2026-11-21T17:05:00.000Z', 'Europe/Berlin'), 'Sat 21 Nov, 18:05');
  const xa = localeOf('en-XA');
  assert.equal(xa.day('2026-11-22', true), pseudoText('Sunday 22 November 2026'));
  assert.equal(xa.t('digest.counts.none'), pseudoText('Nothing new this time.'));
  assert.ok(!/[A-Za-z]{2}/.test(xa.t('digest.counts.none')));
});

test('the pseudo-locale keeps placeholders and plural keys and changes every letter of text', () => {
  const xa = pseudoCatalogue({ m: "{n, plural, one {# link from {feed}} other {# links}} it's" });
  assert.equal(xa.m, "{n, plural, one {# ļîîñķ ƒŕööɱ {feed}} other {# ļîîñķš}} îîţ''š");
});

test('Accept-Language: the best language Tidings speaks by q-value; the account’s own first, then the operator’s', () => {
  assert.equal(acceptedLanguage('sv-SE, sv;q=0.9, en;q=0.8'), 'en');
  assert.equal(acceptedLanguage('sv'), null);
  assert.equal(acceptedLanguage('fr-CH, fr;q=0.9, en;q=0.8'), 'fr');
  assert.equal(acceptedLanguage('en;q=0.4, de-AT;q=0.5, it'), 'it');
  assert.equal(acceptedLanguage(undefined), null);
  assert.equal(acceptedLanguage(`en;q=0.5,${'x'.repeat(2000)}`), null);
  assert.equal(acceptedLanguage('en-XA'), 'en', 'the pseudo-locale is never negotiated: its English is');
  assert.equal(chosenLanguage({ account: 'en-XA', acceptLanguage: 'en' }), 'en-XA');
  assert.equal(chosenLanguage({ account: null, acceptLanguage: 'sv', operatorDefault: 'en-XA' }), 'en-XA');
  assert.equal(chosenLanguage({ account: null, acceptLanguage: 'fr', operatorDefault: 'en-XA' }), 'fr');
  assert.equal(chosenLanguage({}), 'en');
});

test('Chinese: a browser’s zh-CN, zh-SG or plain zh is Simplified Chinese; Traditional is not offered it', () => {
  assert.equal(acceptedLanguage('zh-CN,zh;q=0.9,en;q=0.8'), 'zh-Hans');
  assert.equal(acceptedLanguage('zh-SG'), 'zh-Hans');
  assert.equal(acceptedLanguage('zh'), 'zh-Hans');
  assert.equal(acceptedLanguage('zh-Hans-CN'), 'zh-Hans');
  assert.equal(acceptedLanguage('zh-TW,en;q=0.5'), 'en');
  assert.equal(acceptedLanguage('zh-HK'), null);
  assert.equal(acceptedLanguage('zh-Hant-TW'), null);
  assert.equal(acceptedLanguage('ja-JP,ja;q=0.9'), 'ja');
  assert.equal(languageOf('zh')?.code, 'zh-Hans');
  assert.equal(languageOf('zh_cn')?.code, 'zh-Hans');
  assert.equal(languageOf('zh-Hans-HK')?.code, 'zh-Hans');
  assert.equal(languageOf('zh-TW'), undefined);
  assert.equal(languageOf('zh-Hant'), undefined);
});

test('lists in the language’s own way: Japanese 、, Chinese 、 and 和, Arabic و', () => {
  assert.equal(localeOf('ja').list(['A', 'B', 'C']), 'A、B、C');
  assert.equal(localeOf('zh-Hans').list(['A', 'B', 'C']), 'A、B和C');
  assert.equal(localeOf('ar').list(['A', 'B', 'C']), 'A وB وC');
});

test('a language’s messages are made once, at its first use: one never spoken costs nothing', () => {
  const de = languageOf('de');
  assert.ok(de !== undefined);
  let made = 0;
  const counted = { ...de, code: 'x-counted', load: () => (made++, de.load()) };
  assert.equal(made, 0);
  const first = catalogueOf(counted);
  assert.equal(catalogueOf(counted), first);
  assert.equal(made, 1);
  assert.equal(first['list.untitled'](), 'Ohne Titel');
});
