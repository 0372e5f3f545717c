import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as z from 'zod';
import {
  type ActionDone,
  type ActionPreview,
  type Undo,
  describeAction,
  digestActionReader,
  performAction,
  readerSettings,
  undoAction,
} from '../../../accounts/digestActions.js';
import type { DigestAction } from '../../../digest/actionTokens.js';
import { parsePerDigestChoice } from '../../../lib/digestShare.js';
import { type Locale, localeOf } from '../../../i18n/locale.js';
import { type WebDeps, WebError, field, formOf, localeFor, sendPage } from '../context.js';
import { webRefusal } from '../errors.js';
import { BODY_LIMIT, actionPage, id, message, notFound } from './actionPage.js';
import { doneBody, previewBody } from './digestActionBodies.js';
import { readingActionQuery, readingActionResponse } from './readingActions.js';

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
  /** The token's reader, in its account's language and zone; a 404 (in the browser's) for no reader. */
  const readerOf = async (request: FastifyRequest) => {
    const token = (request.params as { token?: string }).token ?? '';
    const reader = await digestActionReader(deps.store, token, deps.now());
    if (reader === null) throw new WebError(404, notFound(localeFor(request)));
    const { zone, language } = await readerSettings(deps.store, reader.accountId);
    return { token, reader, zone, locale: localeOf(language) };
  };

  const opened = async (request: FastifyRequest) => {
    const { token, reader, zone, locale } = await readerOf(request);
    const query = actionQuery.safeParse(request.query);
    if (!query.success) throw new WebError(404, notFound(locale));
    const q = query.data;
    const action: DigestAction =
      q.do === 'keep' ? { kind: 'keep', itemId: q.item } : { kind: q.do, feedId: q.feed };
    const target = q.do === 'keep' ? `item=${q.item}` : `feed=${q.feed}`;
    return { reader, action, zone, locale, path: `/digest-actions/${token}?do=${q.do}&${target}` };
  };

  // "From your reading list"'s links: the same token, their own query and page (pages/readingActions.ts).
  const reading = async (request: FastifyRequest, form: URLSearchParams | null) => {
    const query = readingActionQuery.safeParse(request.query);
    if (!query.success) return null;
    const { token, reader, locale } = await readerOf(request);
    return readingActionResponse(deps, reader, query.data, token, form, request.log, locale);
  };

  scope.get('/digest-actions/:token', async (request, reply) => {
    const readingPage = await reading(request, null);
    if (readingPage !== null) return sendPage(reply, 200, readingPage);
    const { reader, action, path, zone, locale } = await opened(request);
    const preview = await describeAction(deps.store, reader, action, deps.now());
    if (preview === null) throw new WebError(404, notFound(locale));
    return sendPage(
      reply,
      200,
      actionPage(locale, titleOf(locale, preview), null, previewBody(locale, preview, path, zone)),
    );
  });

  scope.post('/digest-actions/:token', { bodyLimit: BODY_LIMIT }, async (request, reply) => {
    const readingPage = await reading(request, formOf(request));
    if (readingPage !== null) return sendPage(reply, 200, readingPage);
    const { reader, action, path, zone, locale } = await opened(request);
    const form = formOf(request);
    if (form.has('undo')) {
      const undo = undoOf(form, action);
      if (undo === null) throw new WebError(400, locale.t('web.action.cannotUndo'));
      const result = await undoAction(deps.store, reader, action, undo, deps.now());
      if (result === null) throw new WebError(404, notFound(locale));
      request.log.info({ action: action.kind, undone: result.undone }, 'digest action undone');
      const notice = message(locale, result.undone ? 'web.action.undone' : 'web.action.nothingToUndo');
      return sendPage(
        reply,
        200,
        actionPage(
          locale,
          titleOf(locale, result.preview),
          notice,
          previewBody(locale, result.preview, path, zone),
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
      const refusal = webRefusal(err, deps.config, locale);
      if (refusal === null) throw err;
      throw new WebError(
        refusal.status === 401 ? 404 : refusal.status,
        refusal.status === 401 ? notFound(locale) : refusal.message,
      );
    }
    if (done === null) throw new WebError(404, notFound(locale));
    request.log.info({ action: action.kind }, 'digest action done through an email link');
    return sendPage(
      reply,
      200,
      actionPage(locale, doneTitle(locale, done), null, doneBody(locale, done, path, zone)),
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

const titleOf = (locale: Locale, p: ActionPreview): string =>
  doneTitle(
    locale,
    p.kind === 'keep'
      ? { ...p, added: false, undo: null }
      : p.kind === 'unfollowed'
        ? p
        : { ...p, undo: null },
  );

function doneTitle(locale: Locale, d: ActionDone): string {
  if (d.kind === 'keep') return locale.t('web.action.title.keep');
  if (d.kind === 'unfollowed') return d.feedName;
  return locale.t('web.action.title.share', { kind: d.kind, feed: d.feedName });
}
