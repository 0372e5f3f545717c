import type { Locale } from '../../../i18n/locale.js';
import type { FastifyBaseLogger } from 'fastify';
import * as z from 'zod';
import type { ActionReader } from '../../../accounts/digestActions.js';
import {
  type ReadingDone,
  type ReadingPreview,
  type ReadingUndo,
  describeReadingAction,
  performReadingAction,
  undoReadingAction,
} from '../../../accounts/readingActions.js';
import type { ReadingAction } from '../../../digest/actionTokens.js';
import { type WebDeps, WebError, field } from '../context.js';
import { type SafeHtml, html, markup } from '../html.js';
import { actionPage, button, id, message, notFound, titled } from './actionPage.js';

/*
 * The pages of "From your reading list"'s links (`/digest-actions/TOKEN?do=archive|tomorrow&reading=ID`):
 * the same token and rules as the digest's other actions (pages/digestActions.ts, which hands these
 * queries here). GET says what the button will do and changes nothing; POST does it, with an Undo.
 */

/** The query of a reading-list action link (digest/actionTokens.ts readingActionUrl). */
export const readingActionQuery = z.object({ do: z.enum(['archive', 'tomorrow']), reading: id });

/** The timestamp an Undo of "Keep for tomorrow" sends back: the mark it set. */
const KEPT_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const hint = (locale: Locale): SafeHtml =>
  message(locale, 'web.action.reading.hint', markup.link('/settings'), markup.linkNames);

/**
 * The page for a reading-list action: its preview (GET: `form` null), what it did (POST), or what its
 * Undo did (POST with `undo`). A 404 for an item the token's digest did not offer.
 */
export async function readingActionResponse(
  deps: WebDeps,
  reader: ActionReader,
  query: z.output<typeof readingActionQuery>,
  token: string,
  form: URLSearchParams | null,
  log: FastifyBaseLogger,
  locale: Locale,
): Promise<SafeHtml> {
  const action: ReadingAction = { kind: query.do, readingId: query.reading };
  const path = `/digest-actions/${token}?do=${query.do}&reading=${query.reading}`;
  if (form === null) {
    const preview = await describeReadingAction(deps.store, reader, action);
    if (preview === null) throw new WebError(404, notFound(locale));
    return actionPage(
      locale,
      titleOf(locale, action),
      null,
      previewBody(locale, preview, path),
      hint(locale),
    );
  }
  if (form.has('undo')) {
    const undo = undoOf(form, action);
    if (undo === null) throw new WebError(400, locale.t('web.action.cannotUndo'));
    const result = await undoReadingAction(deps.store, reader, action, undo, deps.now());
    if (result === null) throw new WebError(404, notFound(locale));
    log.info({ action: `reading_${action.kind}`, undone: result.undone }, 'digest action undone');
    const notice = message(locale, result.undone ? 'web.action.undone' : 'web.action.reading.nothingToUndo');
    return actionPage(
      locale,
      titleOf(locale, action),
      notice,
      previewBody(locale, result.preview, path),
      hint(locale),
    );
  }
  const done = await performReadingAction(deps.store, reader, action, deps.now());
  if (done === null) throw new WebError(404, notFound(locale));
  log.info({ action: `reading_${action.kind}` }, 'digest action done through an email link');
  return actionPage(locale, titleOf(locale, action), null, doneBody(locale, done, path), hint(locale));
}

function undoOf(form: URLSearchParams, action: ReadingAction): ReadingUndo | null {
  if (action.kind === 'archive') return { kind: 'unarchive' };
  const kept = field(form, 'kept') ?? '';
  return KEPT_AT.test(kept) ? { kind: 'unkeep', keptAt: kept } : null;
}

const titleOf = (locale: Locale, a: ReadingAction): string =>
  locale.t(a.kind === 'archive' ? 'web.action.reading.title.archive' : 'web.action.title.keep');

/** The messages that say something of one title ("“…” is archived: …"). */
type TitleKey =
  | 'web.action.reading.archive.already'
  | 'web.action.reading.archive.preview'
  | 'web.action.reading.archive.unchanged'
  | 'web.action.reading.archive.done'
  | 'web.action.reading.archived'
  | 'web.action.reading.keep.already'
  | 'web.action.reading.keep.preview'
  | 'web.action.reading.keep.unchanged'
  | 'web.action.reading.keep.done';

const about = (locale: Locale, key: TitleKey, title: string): SafeHtml =>
  message(locale, key, { title: titled(title) }, ['title']);

function previewBody(locale: Locale, p: ReadingPreview, path: string): SafeHtml {
  const say = (key: TitleKey): SafeHtml => html`<p>${about(locale, key, p.title)}</p>`;
  if (p.kind === 'archive') {
    return p.archived
      ? say('web.action.reading.archive.already')
      : html`${say('web.action.reading.archive.preview')}
          <div class="row">${button(path, locale.t('web.action.reading.archive.button'))}</div>`;
  }
  if (p.archived) return say('web.action.reading.archived');
  return p.kept
    ? say('web.action.reading.keep.already')
    : html`${say('web.action.reading.keep.preview')}
        <div class="row">${button(path, locale.t('web.action.keep.button'))}</div>`;
}

function doneBody(locale: Locale, d: ReadingDone, path: string): SafeHtml {
  const notice = (key: TitleKey): SafeHtml =>
    html`<p class="notice" role="status">${about(locale, key, d.title)}</p>`;
  if (d.undo === null) {
    return notice(
      d.kind === 'archive' ? 'web.action.reading.archive.unchanged' : 'web.action.reading.keep.unchanged',
    );
  }
  if (d.undo.kind === 'unarchive') {
    return html`${notice('web.action.reading.archive.done')}
      <div class="row">
        ${button(path, locale.t('web.action.reading.archive.undo'), { undo: '1' }, 'quiet')}
      </div>`;
  }
  return html`${notice('web.action.reading.keep.done')}
    <div class="row">
      ${button(path, locale.t('web.action.reading.keep.undo'), { undo: '1', kept: d.undo.keptAt }, 'quiet')}
    </div>`;
}
