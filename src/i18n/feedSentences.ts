import type { Locale } from './locale.js';

/**
 * Sentences about following feeds that more than one transport says (the CLI and the Feeds page): the
 * services below return facts (src/accounts/subscriptions.ts `queuedFacts`, src/accounts/opml.ts
 * `interruptedImport`), each transport words them in its reader's language with these.
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
      return locale.t('feeds.queued.older', { date: locale.date(facts.newestDay) });
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
