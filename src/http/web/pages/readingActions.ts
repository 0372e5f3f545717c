import type { Locale } from '../../../i18n/locale.js';
import type { FastifyBaseLogger } from 'fastify';
import { z } from 'zod';
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
import { type SafeHtml, html } from '../html.js';
import { NOT_FOUND, actionPage, button, id } from './actionPage.js';

/*
 * The pages of "From your reading list"'s links (`/digest-actions/TOKEN?do=archive|tomorrow&reading=ID`):
 * the same token and rules as the digest's other actions (pages/digestActions.ts, which hands these
 * queries here). GET says what the button will do and changes nothing; POST does it, with an Undo.
 */

/** The query of a reading-list action link (digest/actionTokens.ts readingActionUrl). */
export const readingActionQuery = z.object({ do: z.enum(['archive', 'tomorrow']), reading: id });

/** The timestamp an Undo of "Keep for tomorrow" sends back: the mark it set. */
const KEPT_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const HINT = html`Your reading list comes back a few links a digest; how many, and in which order, is in
  <a href="/settings">Settings</a> when you sign in.`;

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
    if (preview === null) throw new WebError(404, NOT_FOUND);
    return actionPage(locale, titleOf(action), null, previewBody(preview, path), HINT);
  }
  if (form.has('undo')) {
    const undo = undoOf(form, action);
    if (undo === null) {
      throw new WebError(400, 'That is not something this page can undo. Go back and choose a button.');
    }
    const result = await undoReadingAction(deps.store, reader, action, undo, deps.now());
    if (result === null) throw new WebError(404, NOT_FOUND);
    log.info({ action: `reading_${action.kind}`, undone: result.undone }, 'digest action undone');
    const notice = result.undone
      ? html`Undone.`
      : html`Nothing to undo: a digest has offered it since, or it was changed since.`;
    return actionPage(locale, titleOf(action), notice, previewBody(result.preview, path), HINT);
  }
  const done = await performReadingAction(deps.store, reader, action, deps.now());
  if (done === null) throw new WebError(404, NOT_FOUND);
  log.info({ action: `reading_${action.kind}` }, 'digest action done through an email link');
  return actionPage(locale, titleOf(action), null, doneBody(done, path), HINT);
}

function undoOf(form: URLSearchParams, action: ReadingAction): ReadingUndo | null {
  if (action.kind === 'archive') return { kind: 'unarchive' };
  const kept = field(form, 'kept') ?? '';
  return KEPT_AT.test(kept) ? { kind: 'unkeep', keptAt: kept } : null;
}

const titleOf = (a: ReadingAction): string =>
  a.kind === 'archive' ? 'Archive from your reading list' : 'Keep for tomorrow';

const quoted = (title: string): SafeHtml => html`“<span dir="auto">${title}</span>”`;

function previewBody(p: ReadingPreview, path: string): SafeHtml {
  if (p.kind === 'archive') {
    return p.archived
      ? html`<p>${quoted(p.title)} is already archived: no digest offers it again.</p>`
      : html`<p>
            Archiving ${quoted(p.title)} takes it off your reading list's unread links: no digest offers it
            again.
          </p>
          <div class="row">${button(path, 'Archive it')}</div>`;
  }
  if (p.archived) return html`<p>${quoted(p.title)} is archived: no digest offers it again.</p>`;
  return p.kept
    ? html`<p>${quoted(p.title)} is already kept: your next digest offers it again.</p>`
    : html`<p>
          Your next digest offers ${quoted(p.title)} again, before any other link of your reading list.
        </p>
        <div class="row">${button(path, 'Keep it for tomorrow')}</div>`;
}

function doneBody(d: ReadingDone, path: string): SafeHtml {
  if (d.undo === null) {
    const why =
      d.kind === 'archive'
        ? html`is already archived`
        : html`is already kept for your next digest, or archived`;
    return html`<p class="notice" role="status">Nothing to change: ${quoted(d.title)} ${why}.</p>`;
  }
  if (d.undo.kind === 'unarchive') {
    return html`<p class="notice" role="status">Done: ${quoted(d.title)} is archived.</p>
      <div class="row">${button(path, 'Undo: back to unread', { undo: '1' }, 'quiet')}</div>`;
  }
  return html`<p class="notice" role="status">Done: your next digest offers ${quoted(d.title)} again.</p>
    <div class="row">
      ${button(path, 'Undo: let it wait its turn', { undo: '1', kept: d.undo.keptAt }, 'quiet')}
    </div>`;
}
