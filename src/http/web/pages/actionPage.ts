import type { Locale } from '../../../i18n/locale.js';
import { z } from 'zod';
import { type SafeHtml, html } from '../html.js';
import { page } from '../layout.js';

/* What the pages of a digest's private action links share (digestActions.ts, readingActions.ts). */

/** An action's POST carries a field or two: anything larger is refused before it is read. */
export const BODY_LIMIT = 4096;

export const NOT_FOUND = 'There is no page at this address. It may have moved, or the link may be mistyped.';

/** An id in an action link's query. */
export const id = z
  .string()
  .regex(/^[1-9][0-9]{0,15}$/)
  .transform(Number)
  .pipe(z.number().int().max(Number.MAX_SAFE_INTEGER));

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

const FEEDS_HINT = html`How many entries each feed gets, its priority and mutes are on the
  <a href="/feeds">Feeds</a> page when you sign in.`;

/** The page of an action: its title, a notice, what it says, and a hint of where the same is done signed in. */
export function actionPage(
  locale: Locale,
  title: string,
  notice: SafeHtml | null,
  body: SafeHtml,
  hint: SafeHtml = FEEDS_HINT,
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
