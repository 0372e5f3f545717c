import type { Locale, MessageKey, MessageValues } from '../../../i18n/locale.js';
import * as z from 'zod';
import { SafeHtml, html, markup } from '../html.js';
import { page } from '../layout.js';
import { localTime } from '../time.js';

/* What the pages of a digest's private action links share (digestActions.ts, readingActions.ts, unsubscribe.ts). */

/** An action's POST carries a field or two: anything larger is refused before it is read. */
export const BODY_LIMIT = 4096;

/** The 404 of an action link that opens nothing (in the account's language when the token named one). */
export const notFound = (locale: Locale): string => locale.t('web.action.notFound');

/** An id in an action link's query. */
export const id = z
  .string()
  .regex(/^[1-9][0-9]{0,15}$/)
  .transform(Number)
  .pipe(z.number().int().max(Number.MAX_SAFE_INTEGER));

/**
 * A catalogue message as HTML: its text escaped, the values named in `pieces` put in as the markup they
 * are (a link, a <time>, a title in its <span dir="auto">): one sentence whatever goes in it.
 */
export function message<K extends MessageKey>(
  locale: Locale,
  key: K,
  values?: MessageValues<K>[0],
  pieces: readonly string[] = [],
): SafeHtml {
  return new SafeHtml(locale.html(key, (values ?? {}) as MessageValues<K>[0], pieces));
}

/** A title (an item's, a feed's) as it goes into a message: in its own direction. */
export const titled = (title: string): string => html`<span dir="auto">${title}</span>`.value;

/** A moment in `zone`, in the reader's language (time.ts `localTime`: one rule for the web's dates). */
export const momentIn = (locale: Locale, iso: string, zone: string): string => localTime(iso, zone, locale);

/** A moment in the reader's zone, the zone named (as its e-mail says "Times are in …"). */
export const until = (locale: Locale, iso: string, zone: string): string =>
  message(
    locale,
    'web.action.momentInZone',
    { time: html`<time datetime="${iso}">${momentIn(locale, iso, zone)}</time>`.value, zone },
    ['time'],
  ).value;

/** A form that POSTs to the action's own link, with hidden fields (an Undo's state). */
export const button = (
  path: string,
  label: string,
  hidden: Record<string, string> = {},
  kind?: string,
): SafeHtml =>
  html`<form class="inline" method="post" action="${path}">
    ${Object.entries(hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}
    <button type="submit" ${kind === undefined ? null : html`class="${kind}"`}>${label}</button>
  </form>`;

/** "… on the Feeds page when you sign in": where the same is done signed in. */
const feedsHint = (locale: Locale): SafeHtml =>
  message(locale, 'web.action.feedsHint', markup.link('/feeds'), markup.linkNames);

/** The page of an action: its title, a notice, what it says, and a hint of where the same is done signed in. */
export function actionPage(
  locale: Locale,
  title: string,
  notice: SafeHtml | null,
  body: SafeHtml,
  hint: SafeHtml = feedsHint(locale),
): SafeHtml {
  return page({
    locale,
    title,
    viewer: null,
    body: html`<div class="wrap">
      <h1 dir="auto">${title}</h1>
      ${notice === null ? null : html`<p class="notice" role="status">${notice}</p>`} ${body}
      <p class="muted">${hint}</p>
    </div>`,
  });
}
