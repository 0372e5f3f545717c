/**
 * Issue 36: Brazilian Portuguese, Dutch and Polish as their readers write them — each language's plural
 * categories (Polish one/few/many, Portuguese's singular zero and one), its digits and separators, its
 * dates through Intl, its quotation marks; and the codes a reader gives for them ("pt", "nl-BE").
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderEmailHtml } from '../digest/render/html.js';
import { renderText } from '../digest/render/text.js';
import { digestView } from '../digest/view.js';
import { sampleDigest } from '../test/digestFixtures.js';
import { languageOf } from './languages.js';
import { localeOf } from './locale.js';
import { acceptedLanguage } from './negotiate.js';

const NBSP = '\u00a0';

test('Polish: one, few and many by the last digits; four digits stay whole, five take a no-break space', () => {
  const pl = localeOf('pl');
  const subject = (count: number): string => pl.t('digest.subject', { date: 'D', count });
  assert.equal(subject(0), 'Tidings — D: nic nowego');
  assert.equal(subject(1), 'Tidings — D: 1 nowy link');
  assert.equal(subject(2), 'Tidings — D: 2 nowe linki');
  assert.equal(subject(5), 'Tidings — D: 5 nowych linków');
  assert.equal(subject(12), 'Tidings — D: 12 nowych linków');
  assert.equal(subject(22), 'Tidings — D: 22 nowe linki');
  assert.equal(subject(1000), 'Tidings — D: 1000 nowych linków');
  assert.equal(subject(10000), `Tidings — D: 10${NBSP}000 nowych linków`);
  assert.equal(
    pl.t('digest.counts.mixed', { items: 3, saved: 1, fromFeeds: 2, feeds: 1 }),
    '3 nowe linki: 1 zapisany przez Ciebie i 2 z 1 kanału.',
  );
  assert.equal(pl.t('digest.saved.years', { years: 1 }), 'zapisano rok temu');
  assert.equal(pl.t('digest.saved.years', { years: 3 }), 'zapisano 3 lata temu');
  assert.equal(pl.t('digest.saved.years', { years: 5 }), 'zapisano 5 lat temu');
  assert.equal(pl.aboutMinutes(1), 'około 1 minuty');
  assert.equal(pl.aboutMinutes(12), 'około 12 minut');
  assert.equal(
    pl.t('digest.footer.whyText', { zone: 'UTC', name: 'Ada' }),
    'Godziny w strefie UTC. Konto Tidings „Ada”.',
  );
});

test('Brazilian Portuguese: zero said in words where CLDR would make it singular; dots between thousands', () => {
  const pt = localeOf('pt-BR');
  assert.equal(pt.lang, 'pt-BR');
  assert.equal(pt.aboutMinutes(0), 'menos de um minuto');
  assert.equal(pt.aboutMinutes(1), 'cerca de 1 minuto');
  assert.equal(pt.aboutMinutes(2), 'cerca de 2 minutos');
  assert.equal(pt.t('epub.cover.all', { items: 1, articles: 0 }), '1 item; nenhum artigo para ler aqui.');
  assert.equal(
    pt.t('digest.counts.allSaved', { items: 10000 }),
    '10.000 links novos, todos salvos por você.',
  );
  assert.equal(pt.t('digest.counts.allSaved', { items: 1 }), '1 link novo, salvo por você.');
  assert.equal(pt.t('digest.footer.whyWeb', { zone: 'UTC', name: 'Ada' }).includes('“Ada”'), true);
});

test('Dutch: one and other; "jaar" stays singular after a number', () => {
  const nl = localeOf('nl');
  assert.equal(nl.t('digest.atom.entry', { date: 'D', count: 1 }), 'D: 1 link');
  assert.equal(nl.t('digest.atom.entry', { date: 'D', count: 10000 }), 'D: 10.000 links');
  assert.equal(nl.t('digest.saved.years', { years: 3 }), '3 jaar geleden bewaard');
  assert.equal(nl.t('digest.saved.days', { days: 1 }), 'gisteren bewaard');
  assert.equal(nl.minRead(6), '6 min. leestijd');
});

test('dates are Intl’s in each language, in the account’s zone', () => {
  const formats: [string, string][] = [
    ['pt-BR', 'pt-BR'],
    ['nl', 'nl'],
    ['pl', 'pl'],
  ];
  for (const [code, intl] of formats) {
    const long = new Intl.DateTimeFormat(intl, {
      timeZone: 'UTC',
      weekday: 'long',
      day: 'numeric',
      month: 'long',
      year: 'numeric',
    }).format(Date.UTC(2026, 10, 22));
    assert.equal(localeOf(code).day('2026-11-22', true), long);
    // The month is a word of the language, never English's.
    assert.doesNotMatch(long, /November|Sunday/);
  }
  assert.match(localeOf('pl').day('2026-11-22', true), /listopada/);
  assert.match(localeOf('pt-BR').day('2026-11-22', true), /novembro/);
  assert.match(localeOf('nl').time('2026-11-21T17:05:00.000Z', 'Europe/Amsterdam'), /18:05/);
});

test('codes: a region finds its language; browsers negotiate them, a plain "pt" included', () => {
  assert.equal(languageOf('pt_br')?.code, 'pt-BR');
  // A plain "pt" (`--language pt`, TIDINGS_LANGUAGE=pt) is Brazilian Portuguese, as "zh" is zh-Hans;
  // European Portuguese is not offered it.
  assert.equal(languageOf('pt')?.code, 'pt-BR');
  assert.equal(languageOf('PT')?.code, 'pt-BR');
  assert.equal(languageOf('pt-PT'), undefined);
  assert.equal(acceptedLanguage('pt-PT'), null);
  assert.equal(languageOf('nl-BE')?.code, 'nl');
  assert.equal(languageOf('pl-PL')?.code, 'pl');
  assert.equal(languageOf('zz-pl'), undefined);
  assert.equal(acceptedLanguage('pl-PL,pl;q=0.9,en-US;q=0.8,en;q=0.7'), 'pl');
  assert.equal(acceptedLanguage('nl-BE,nl;q=0.9'), 'nl');
  assert.equal(acceptedLanguage('pt-BR,pt;q=0.9'), 'pt-BR');
  assert.equal(acceptedLanguage('pt'), 'pt-BR');
});

test('a digest in each language: its lang, its own words for the footer, no English label left', () => {
  const words: [string, string, string][] = [
    ['pt-BR', 'Configurações: https://news.example/settings', 'Gerenciar feeds'],
    ['nl', 'Instellingen: https://news.example/settings', 'Feeds beheren'],
    ['pl', 'Ustawienia: https://news.example/settings', 'Zarządzaj kanałami'],
  ];
  for (const [code, settingsLine, feeds] of words) {
    const sample = sampleDigest();
    const view = digestView({ ...sample, account: { ...sample.account, language: code } });
    const text = renderText(view);
    const html = renderEmailHtml(view);
    assert.ok(text.includes(settingsLine), text);
    assert.ok(html.startsWith(`<!DOCTYPE html>\n<html lang="${code}">`), html.slice(0, 80));
    assert.ok(html.includes(feeds));
    for (const english of ['Settings', 'Manage feeds', 'Read on the web', 'Times are in']) {
      assert.ok(!text.includes(english) && !html.includes(english), `${code}: ${english}`);
    }
  }
});
