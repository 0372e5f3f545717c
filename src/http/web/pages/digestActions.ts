import type { Locale } from '../../../i18n/locale.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  type ActionDone,
  type ActionPreview,
  type ActionReader,
  type Undo,
  describeAction,
  digestActionReader,
  performAction,
  readerZone,
  undoAction,
} from '../../../accounts/digestActions.js';
import type { DigestShare } from '../../../accounts/digestShare.js';
import type { DigestAction } from '../../../digest/actionTokens.js';
import {
  type PerDigest,
  type PerDigestChoice,
  DEFAULT_PER_DIGEST,
  parsePerDigestChoice,
  perDigestWords,
} from '../../../lib/digestShare.js';
import { type WebDeps, WebError, field, formOf, localeFor, sendPage } from '../context.js';
import { webRefusal } from '../errors.js';
import { type SafeHtml, html } from '../html.js';
import { BODY_LIMIT, NOT_FOUND, actionPage, button, id } from './actionPage.js';
import { readingActionQuery, readingActionResponse } from './readingActions.js';
import { localTime } from '../time.js';

/**
 * The query of an action link (digest/actionTokens.ts actionUrl): one action, on one item or one feed.
 * Other parameters (a mail provider's or a link checker's tracking) are ignored; the page's own forms
 * post to the link as built.
 */
const actionQuery = z.union([
  z.object({ do: z.literal('keep'), item: id }),
  z.object({ do: z.enum(['fewer', 'more', 'mute', 'unmute']), feed: id }),
]);

/**
 * The private page of a digest's action link (issue 24), open without signing in: the token in the path is
 * the authorisation (digest/actionTokens.ts), for exactly the actions of accounts/digestActions.ts on the
 * items and feeds of that token's digest. An unknown or revoked token, a malformed query, an item or feed
 * that is not the digest's: the same 404 as any address that is not a page.
 *
 * GET never changes anything (mail scanners and link previews fetch links): it says what the button will
 * do. POST does it and says what it did, with an Undo button that POSTs `undo=1` and the state to go
 * back to. As on the unsubscribe page (pages/unsubscribe.ts), these forms carry no CSRF token and need
 * none: a forged request would have to carry the secret token, and whoever has it may do exactly this
 * anyway. The session cookie, if any, is not read for it.
 */
export function registerDigestActions(scope: FastifyInstance, deps: WebDeps): void {
  const opened = async (request: FastifyRequest) => {
    const token = (request.params as { token?: string }).token ?? '';
    const reader = await digestActionReader(deps.store, token, deps.now());
    const query = actionQuery.safeParse(request.query);
    if (reader === null || !query.success) throw new WebError(404, NOT_FOUND);
    const q = query.data;
    const action: DigestAction =
      q.do === 'keep' ? { kind: 'keep', itemId: q.item } : { kind: q.do, feedId: q.feed };
    const target = q.do === 'keep' ? `item=${q.item}` : `feed=${q.feed}`;
    return { reader, action, path: `/digest-actions/${token}?do=${q.do}&${target}` };
  };

  // "From your reading list"'s links: the same token, their own query and page (pages/readingActions.ts).
  const reading = async (request: FastifyRequest, form: URLSearchParams | null) => {
    const query = readingActionQuery.safeParse(request.query);
    if (!query.success) return null;
    const token = (request.params as { token?: string }).token ?? '';
    const reader = await digestActionReader(deps.store, token, deps.now());
    if (reader === null) throw new WebError(404, NOT_FOUND);
    return readingActionResponse(deps, reader, query.data, token, form, request.log, localeFor(request));
  };

  const previewPage = async (
    reader: ActionReader,
    action: DigestAction,
    path: string,
    notice: SafeHtml | null,
    locale: Locale,
  ) => {
    const preview = await describeAction(deps.store, reader, action, deps.now());
    if (preview === null) throw new WebError(404, NOT_FOUND);
    const zone = await readerZone(deps.store, reader);
    return actionPage(locale, titleOf(preview), notice, previewBody(preview, path, zone));
  };

  scope.get('/digest-actions/:token', async (request, reply) => {
    const readingPage = await reading(request, null);
    if (readingPage !== null) return sendPage(reply, 200, readingPage);
    const { reader, action, path } = await opened(request);
    return sendPage(reply, 200, await previewPage(reader, action, path, null, localeFor(request)));
  });

  scope.post('/digest-actions/:token', { bodyLimit: BODY_LIMIT }, async (request, reply) => {
    const readingPage = await reading(request, formOf(request));
    if (readingPage !== null) return sendPage(reply, 200, readingPage);
    const { reader, action, path } = await opened(request);
    const form = formOf(request);
    if (form.has('undo')) {
      const undo = undoOf(form, action);
      if (undo === null) {
        throw new WebError(400, 'That is not something this page can undo. Go back and choose a button.');
      }
      const result = await undoAction(deps.store, reader, action, undo, deps.now());
      if (result === null) throw new WebError(404, NOT_FOUND);
      request.log.info({ action: action.kind, undone: result.undone }, 'digest action undone');
      const notice = result.undone
        ? html`Undone.`
        : html`Nothing to undo: it has already gone into a digest, or was changed since.`;
      const zone = await readerZone(deps.store, reader);
      return sendPage(
        reply,
        200,
        actionPage(
          localeFor(request),
          titleOf(result.preview),
          notice,
          previewBody(result.preview, path, zone),
        ),
      );
    }
    let done: ActionDone | null;
    try {
      done = await performAction(deps.store, reader, action, {
        now: deps.now(),
        queueLimit: deps.config.queueLimit,
      });
    } catch (err) {
      const refusal = webRefusal(err, deps.config);
      if (refusal === null) throw err;
      throw new WebError(
        refusal.status === 401 ? 404 : refusal.status,
        refusal.status === 401 ? NOT_FOUND : refusal.message,
      );
    }
    if (done === null) throw new WebError(404, NOT_FOUND);
    request.log.info({ action: action.kind }, 'digest action done through an email link');
    const zone = await readerZone(deps.store, reader);
    return sendPage(
      reply,
      200,
      actionPage(localeFor(request), doneTitle(done), null, doneBody(done, path, zone)),
    );
  });
}

/** The state an Undo button sends back, checked against the action; null for anything else. */
function undoOf(form: URLSearchParams, action: DigestAction): Undo | null {
  if (action.kind === 'keep') {
    const raw = field(form, 'queued');
    const parsed = id.safeParse(raw);
    return parsed.success ? { kind: 'keep', queueItemId: parsed.data } : null;
  }
  if (action.kind === 'mute') return { kind: 'unmute' };
  if (action.kind === 'unmute') {
    const until = field(form, 'until') ?? '';
    return /^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(until) ? { kind: 'remute', until } : null;
  }
  const previous = parsePerDigestChoice(field(form, 'previous') ?? '');
  return previous === null ? null : { kind: 'share', previous };
}

const titleOf = (p: ActionPreview): string =>
  doneTitle(
    p.kind === 'keep'
      ? { ...p, added: false, undo: null }
      : p.kind === 'unfollowed'
        ? p
        : { ...p, undo: null },
  );

function doneTitle(d: ActionDone): string {
  if (d.kind === 'keep') return 'Keep for tomorrow';
  if (d.kind === 'unfollowed') return d.feedName;
  if (d.kind === 'mute' || d.kind === 'unmute')
    return `${d.kind === 'mute' ? 'Mute' : 'Unmute'} ${d.feedName}`;
  return `${d.kind === 'fewer' ? 'Fewer' : 'More'} from ${d.feedName}`;
}

/** "up to 3 of its entries (the default)". */
const shareWords = (share: DigestShare): string =>
  `${perDigestWords(share.perDigest)}${share.perDigestDefault ? ' (the default)' : ''}`;

/** "3 (the default)", "all", "5": the setting an Undo goes back to. */
const choiceWords = (choice: PerDigestChoice): string =>
  choice === 'default' ? `${DEFAULT_PER_DIGEST} (the default)` : String(choice);

/** A moment in the reader's zone, the zone named (as its e-mail says "Times are in …"). */
const until = (iso: string, zone: string): SafeHtml =>
  html`<time datetime="${iso}">${localTime(iso, zone)}</time> (${zone})`;

const COUNTED = html`the rest of its items are counted on one line, “+N more from”, and stay on the digest’s
web page.`;

function mutedLine(share: DigestShare, zone: string): SafeHtml | null {
  return share.mutedUntil === null
    ? null
    : html`<p>
        It is muted until ${until(share.mutedUntil, zone)}: until then digests only count its items.
      </p>`;
}

function previewBody(p: ActionPreview, path: string, zone: string): SafeHtml {
  switch (p.kind) {
    case 'keep':
      return p.queued
        ? html`<p>
            “<span dir="auto">${p.title}</span>” is already waiting in your queue: it will be in your next
            digest.
          </p>`
        : html`<p>
              “<span dir="auto">${p.title}</span>” goes back into your queue as a link you saved: your next
              digest shows it first.
            </p>
            <div class="row">${button(path, 'Keep it for tomorrow')}</div>`;
    case 'fewer':
    case 'more': {
      const same = p.next === p.share.perDigest && !p.share.perDigestDefault;
      return html`<p>
          Each digest shows ${shareWords(p.share)} from “<span dir="auto">${p.feedName}</span>”.
        </p>
        ${mutedLine(p.share, zone)}
        ${
          same
            ? html`<p>
                ${p.kind === 'fewer' ? 'That is already the fewest' : 'That is already all of them'}.
              </p>`
            : html`<p>With ${p.kind} it shows ${nextWords(p.next)}; ${COUNTED}</p>
                <div class="row">
                  ${button(path, p.kind === 'fewer' ? 'Show fewer from this feed' : 'Show more from this feed')}
                </div>`
        }`;
    }
    case 'mute':
      return html`<p>
          Muting “<span dir="auto">${p.feedName}</span>” for a week, until ${until(p.until, zone)}, makes
          digests only count its items, on one line, “+N more from”; they stay on the digest’s web page.
        </p>
        ${mutedLine(p.share, zone)}
        <div class="row">${button(path, 'Mute for a week')}</div>`;
    case 'unmute':
      return p.share.mutedUntil === null
        ? html`<p>“<span dir="auto">${p.feedName}</span>” is not muted: there is nothing to change.</p>`
        : html`${mutedLine(p.share, zone)}
            <p>Unmuting it makes your next digest show its entries again.</p>
            <div class="row">${button(path, 'Unmute')}</div>`;
    case 'unfollowed':
      return html`<p>
        You no longer follow “<span dir="auto">${p.feedName}</span>”: there is nothing to change.
      </p>`;
  }
}

const nextWords = (next: PerDigest): string => (next === 0 ? 'none of its entries' : perDigestWords(next));

function doneBody(d: ActionDone, path: string, zone: string): SafeHtml {
  switch (d.kind) {
    case 'keep':
      return d.undo === null || d.undo.kind !== 'keep'
        ? html`<p class="notice" role="status">
            “<span dir="auto">${d.title}</span>” was already in your queue: it will be in your next digest.
          </p>`
        : html`<p class="notice" role="status">
              Done: “<span dir="auto">${d.title}</span>” is back in your queue; your next digest shows it
              first.
            </p>
            <div class="row">
              ${button(path, 'Undo: take it out again', { undo: '1', queued: String(d.undo.queueItemId) }, 'quiet')}
            </div>`;
    case 'fewer':
    case 'more': {
      const words = html`each digest shows ${shareWords(d.share)} from “<span dir="auto">${d.feedName}</span
        >”`;
      if (d.undo === null || d.undo.kind !== 'share') {
        return html`<p class="notice" role="status">Nothing to change: ${words}.</p>`;
      }
      return html`<p class="notice" role="status">Done: ${words}.</p>
        ${mutedLine(d.share, zone)}
        <div class="row">
          ${button(path, `Undo: back to ${choiceWords(d.undo.previous)}`, { undo: '1', previous: String(d.undo.previous) }, 'quiet')}
        </div>`;
    }
    case 'mute':
      return html`<p class="notice" role="status">
          Done: “<span dir="auto">${d.feedName}</span>” is muted until
          ${d.share.mutedUntil === null ? null : until(d.share.mutedUntil, zone)}.
        </p>
        <div class="row">${button(path, 'Undo: unmute', { undo: '1' }, 'quiet')}</div>`;
    case 'unmute':
      return d.undo === null || d.undo.kind !== 'remute'
        ? html`<p class="notice" role="status">
            Nothing to change: “<span dir="auto">${d.feedName}</span>” is not muted.
          </p>`
        : html`<p class="notice" role="status">
              Done: “<span dir="auto">${d.feedName}</span>” is no longer muted; your next digest shows its
              entries again.
            </p>
            <div class="row">
              ${button(path, 'Undo: mute it again', { undo: '1', until: d.undo.until }, 'quiet')}
            </div>`;
    case 'unfollowed':
      return html`<p>
        You no longer follow “<span dir="auto">${d.feedName}</span>”: there is nothing to change.
      </p>`;
  }
}
