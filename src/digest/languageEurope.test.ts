/**
 * Issue 36: German, French, Spanish and Italian as their readers write them. A digest in each: `lang`, the
 * day and times in the language's order, counts with its plurals and number separators; French's narrow
 * no-break spaces kept by the text e-mail's wrapping; each EPUB passes EPUBCheck.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { strFromU8, unzipSync } from 'fflate';
import { localeOf } from '../i18n/locale.js';
import { sampleDigest } from '../test/digestFixtures.js';
import { epubcheck, epubcheckSkipReason } from '../test/epubcheck.js';
import { bookOf } from './epub/book.js';
import { epubBytes } from './epub/package.js';
import { countsLine, digestSubject } from './render/common.js';
import { renderEmailHtml, renderWebPage } from './render/html.js';
import { renderText, wrap } from './render/text.js';
import { type DigestView, digestView } from './view.js';

const NNBSP = '\u202f';

function viewIn(language: string): DigestView {
  const sample = sampleDigest();
  return digestView({
    ...sample,
    account: { ...sample.account, language },
    token: 'tok',
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
  });
}

/** What a reader of each language reads in the sample digest (6 links, 2 saved, 5 waiting, Berlin time). */
const EXPECTED = {
  de: {
    subject: 'Tidings – Sonntag, 22. November: 6 neue Links',
    date: 'Sonntag, 22. November 2026',
    heading: 'Sonntag, 22. November 2026',
    counts:
      '6 neue Links: 2 von dir gespeichert, 4 aus 3 Feeds. 5 weitere warten auf die nächste Zusammenfassung.',
    time: 'Sa., 21. Nov., 18:05',
    settings: 'Einstellungen: https://news.example/settings',
  },
  fr: {
    subject: `Tidings – dimanche 22 novembre${NNBSP}: 6 nouveaux liens`,
    date: 'dimanche 22 novembre 2026',
    heading: 'Dimanche 22 novembre 2026',
    counts: `6 nouveaux liens${NNBSP}: 2 enregistrés par vous, 4 provenant de 3 flux. 5 autres liens attendent le prochain récapitulatif.`,
    time: 'sam. 21 nov., 18:05',
    settings: `Paramètres${NNBSP}: https://news.example/settings`,
  },
  es: {
    subject: 'Tidings — domingo, 22 de noviembre: 6 enlaces nuevos',
    date: 'domingo, 22 de noviembre de 2026',
    heading: 'Domingo, 22 de noviembre de 2026',
    counts:
      '6 enlaces nuevos: 2 guardados por ti, 4 de 3 fuentes. Quedan 5 enlaces más para el próximo resumen.',
    time: 'sáb, 21 nov, 18:05',
    settings: 'Ajustes: https://news.example/settings',
  },
  it: {
    subject: 'Tidings – domenica 22 novembre: 6 nuovi link',
    date: 'domenica 22 novembre 2026',
    heading: 'Domenica 22 novembre 2026',
    counts: '6 nuovi link: 2 salvati da te, 4 da 3 feed. Altri 5 link aspettano il prossimo riepilogo.',
    time: 'sab 21 nov, 18:05',
    settings: 'Impostazioni: https://news.example/settings',
  },
} as const;

test('de, fr, es, it: the digest’s lang, its day and times in the language’s order, its counts as a sentence', () => {
  for (const [code, expected] of Object.entries(EXPECTED)) {
    const view = viewIn(code);
    assert.equal(view.locale.lang, code);
    assert.equal(view.locale.dir, 'ltr');
    assert.equal(digestSubject(view), expected.subject);
    assert.equal(view.dateLabel, expected.date);
    assert.equal(countsLine(view), expected.counts);
    assert.equal(view.locale.time('2026-11-21T17:05:00.000Z', 'Europe/Berlin'), expected.time);
    assert.match(renderEmailHtml(view), new RegExp(`^<!DOCTYPE html>\\n<html lang="${code}">`));
    assert.match(renderWebPage(view), new RegExp(`<html lang="${code}"`));
    // A heading opens with a capital, though Intl writes French, Spanish and Italian days in lower case.
    assert.ok(renderEmailHtml(view).includes(`>${expected.heading}</h1>`), code);
    const cover = strFromU8(
      unzipSync(epubBytes(bookOf(view, new Map())))['EPUB/cover.xhtml'] ?? new Uint8Array(),
    );
    assert.ok(cover.includes(`<h1>${expected.heading}</h1>`), cover);
    const text = renderText(view);
    assert.ok(text.includes(`\n${expected.settings}\n`), text);
    assert.ok(text.startsWith(`Tidings ${code === 'es' ? '—' : '–'} ${expected.date}\n`), text);
  }
});

test('plurals by each language’s rules, numbers with its separators', () => {
  const [de, fr, es, it] = ['de', 'fr', 'es', 'it'].map((c) => localeOf(c));
  assert.ok(de !== undefined && fr !== undefined && es !== undefined && it !== undefined);
  // French "one" holds 0 and 1; round millions take "de" (CLDR's "many"), and thousands a narrow space.
  assert.equal(fr.t('digest.more.links', { count: 0 }), '… et 0 autre lien.');
  assert.equal(fr.t('digest.more.links', { count: 2 }), '… et 2 autres liens.');
  assert.equal(
    fr.t('digest.subject', { date: 'D', count: 1_000_000 }),
    `Tidings – D${NNBSP}: 1${NNBSP}000${NNBSP}000 de nouveaux liens`,
  );
  assert.equal(fr.t('digest.subject', { date: 'D', count: 0 }), `Tidings – D${NNBSP}: rien de nouveau`);
  assert.equal(de.t('digest.subject', { date: 'D', count: 1 }), 'Tidings – D: 1 neuer Link');
  assert.equal(de.t('digest.counts.fromFeeds', { items: 3, feeds: 1 }), '3 neue Links aus einem Feed.');
  assert.equal(
    fr.t('digest.counts.fromFeeds', { items: 3, feeds: 1 }),
    '3 nouveaux liens provenant d’un flux.',
  );
  assert.equal(
    fr.t('digest.counts.fromFeeds', { items: 3, feeds: 2 }),
    '3 nouveaux liens provenant de 2 flux.',
  );
  assert.equal(de.t('digest.saved.days', { days: 3 }), 'vor 3 Tagen gespeichert');
  assert.equal(de.t('digest.saved.days', { days: 1 }), 'gestern gespeichert');
  assert.equal(de.number(12345), '12.345');
  assert.equal(de.number(1234), '1.234');
  // Spanish leaves four digits whole (RAE), and groups from five.
  assert.equal(es.number(1234), '1234');
  assert.equal(es.number(12345), '12.345');
  assert.equal(es.aboutMinutes(1), 'alrededor de 1 minuto');
  assert.equal(es.aboutMinutes(12), 'unos 12 minutos');
  assert.equal(es.t('digest.more.links', { count: 1_000_000 }), '… y 1.000.000 de enlaces más.');
  assert.equal(it.aboutMinutes(1), 'circa 1 minuto');
  assert.equal(it.t('digest.more.links', { count: 1 }), '… e un altro link.');
  assert.equal(it.t('digest.more.links', { count: 3 }), '… e altri 3 link.');
  assert.equal(
    it.t('epub.cover.part', { entries: 48, items: 120, articles: 1 }).split(';')[0],
    '48 di 120 elementi',
  );
});

test('the text e-mail never breaks a line at a narrow no-break space: French’s “:” stays with its word', () => {
  assert.deepEqual(wrap(`aaaa bbbb${NNBSP}: cccc`, 10), ['aaaa', `bbbb${NNBSP}:`, 'cccc']);
  // Text that is folded first (a tab, two spaces) keeps it too.
  assert.deepEqual(wrap(`aaaa\tbbbb${NNBSP}:  cccc`, 10), ['aaaa', `bbbb${NNBSP}:`, 'cccc']);
  const text = renderText(viewIn('fr'));
  for (const line of text.split('\n')) assert.doesNotMatch(line, /^\s*[:;!?»]/, line);
  assert.ok(text.includes(`«${NNBSP}Ada`), text);
});

test('de, fr, es, it: each EPUB carries its language and passes EPUBCheck', async (t) => {
  const books = ['de', 'fr', 'es', 'it'].map((code) => {
    const bytes = epubBytes(bookOf(viewIn(code), new Map()));
    const opf = strFromU8(unzipSync(bytes)['EPUB/package.opf'] ?? new Uint8Array());
    assert.match(opf, new RegExp(`<dc:language>${code}</dc:language>`));
    assert.match(opf, /<spine toc="ncx">|<spine toc="ncx" page-progression-direction="ltr">/);
    return { code, bytes };
  });
  const skip = epubcheckSkipReason();
  if (skip !== undefined) {
    t.skip(skip);
    return;
  }
  const reports = await Promise.all(
    books.map(async ({ code, bytes }) => ({ code, ...(await epubcheck(bytes)) })),
  );
  for (const report of reports) {
    assert.deepEqual(
      [report.fatals, report.errors, report.warnings],
      [0, 0, 0],
      `${report.code}: ${report.output}`,
    );
  }
});
