import type { Locale } from './locale.js';

/**
 * Sentences that more than one transport (or a transport and a log) says: the services below return facts
 * (src/accounts/subscriptions.ts `queuedFacts`, src/accounts/opml.ts `interruptedImport`, an import's
 * counts, an address migration 0026 cleared), each transport words them in its reader's language here.
 */

/** The backfill window: "the last 3 days" is whole days, "the last 12 hours" is not. */
export interface BackfillWindow {
  unit: 'days' | 'hours';
  span: number;
}

export const backfillWindow = (hours: number): BackfillWindow =>
  hours % 24 === 0 ? { unit: 'days', span: hours / 24 } : { unit: 'hours', span: hours };

/** What subscribing put in the queue, or why nothing: `newestDay` is YYYY-MM-DD in the account's zone. */
export type QueuedFacts =
  | { kind: 'queued'; queued: number; window: BackfillWindow }
  | { kind: 'undated' }
  | { kind: 'inWindow'; window: BackfillWindow }
  | { kind: 'older'; newestDay: string };

/**
 * "Queued 3 items published in the last day", or why nothing was ("Nothing queued: the newest item is
 * from 12 March 2024; new items will come to your queue as they are published"): without a full stop, as
 * the sentence the CLI and the Feeds page each end in their own way.
 */
export function queuedSentence(locale: Locale, facts: QueuedFacts): string {
  switch (facts.kind) {
    case 'queued':
      return locale.t('feeds.queued.some', { count: facts.queued, ...facts.window });
    case 'undated':
      return locale.t('feeds.queued.undated');
    case 'inWindow':
      return locale.t('feeds.queued.inWindow', facts.window);
    case 'older':
      return locale.t('feeds.queued.older', { date: locale.calendarDate(facts.newestDay) });
  }
}

/**
 * What a person is told about an OPML import cut short (how many of the file's feeds it handled). Its
 * numbers grouped in every language, English's too ("20,000 feeds", as it always said), which `{n, number}`
 * leaves whole in English: given as text.
 */
export function interruptedSentence(locale: Locale, i: { done: number; listed: number }): string {
  const grouped = new Intl.NumberFormat(locale.lang);
  return locale.t('feeds.importInterrupted', {
    done: grouped.format(i.done),
    listed: grouped.format(i.listed),
  });
}

/** An import's counts (src/imports/counts.ts `ImportCounts`), as much as its sentence says. */
export interface ImportCountsFacts {
  format: string;
  rows: number;
  imported: number;
  merged: number;
  duplicates: number;
  bad: number;
  badExamples: readonly unknown[];
}

/** "Imported 3 links from a pocket export of 4 rows into the reading list: …" */
export function importCountsSentence(locale: Locale, c: ImportCountsFacts): string {
  const { format, rows, imported, merged, duplicates, bad } = c;
  // How many of the bad rows are shown below it: none said when they all are.
  const shown = bad > c.badExamples.length ? c.badExamples.length : 0;
  return locale.t('imports.counts', { format, rows, imported, merged, duplicates, bad, shown });
}

/** One line for the operator about an address migration 0026 cleared (src/store/accountEmails.ts). */
export const clearedEmailSentence = (
  locale: Locale,
  c: { account: number; name: string; email: string; keptBy: number },
): string =>
  locale.t('accounts.emailCleared', {
    account: String(c.account),
    name: c.name,
    email: c.email,
    keptBy: String(c.keptBy),
  });
