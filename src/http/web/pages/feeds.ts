import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Session as WebSession } from '../../../accounts/sessions.js';
import { interruptedImport } from '../../../accounts/opml.js';
import {
  type Followed,
  changeFetchOriginal,
  changeFilters,
  filterProblem,
  followFeed,
  followOrChoose,
  followTimeLimitMs,
  listSubscriptions,
  queuedFacts,
  renameFollowed,
  unsubscribe,
} from '../../../accounts/subscriptions.js';
import { setDigestShare } from '../../../accounts/digestShare.js';
import { type TidingsError, isTidingsError } from '../../../errors.js';
import { queuedSentence } from '../../../i18n/sharedSentences.js';
import { isPriority, parsePerDigestChoice } from '../../../lib/digestShare.js';
import { webRefusal } from '../errors.js';
import {
  type WebDeps,
  WebError,
  allowQuiet,
  checkCsrf,
  field,
  formOf,
  idParam,
  queryParam,
  requireSession,
  sendPage,
  seeOther,
  startParam,
  viewerOf,
} from '../context.js';
import { ENGLISH, type Locale, type MessageKey } from '../../../i18n/locale.js';
import type { SafeHtml } from '../html.js';
import {
  type AddForm,
  EMPTY_ADD,
  FEEDS_PAGE_SIZE,
  type FeedsView,
  TITLE_MAX,
  choicePage,
  feedsPage,
  importSummary,
} from './feedsView.js';

/** What a Feeds page shows besides the account's feeds. */
export type FeedsExtra = Partial<
  Pick<FeedsView, 'notice' | 'error' | 'start' | 'filterForm' | 'imported' | 'importError'>
> & {
  form?: AddForm;
  /** What subscribing just queued: said as the notice, in the account's zone. */
  followed?: { queued: number; newestItemAt: string | null };
};

/** The Feeds page of a session: a page of its feeds, and what the last form left to say. */
export async function feedsPageOf(deps: WebDeps, session: WebSession, extra: FeedsExtra): Promise<SafeHtml> {
  const start = extra.start ?? 0;
  const page = { offset: start, limit: FEEDS_PAGE_SIZE };
  const list = await listSubscriptions(deps.store, session.accountId, page);
  const viewer = viewerOf(session);
  if (viewer === null) throw new Error('no viewer for a session');
  if (list === null) throw new WebError(404, viewer.locale.t('web.feeds.accountGone'));
  const followed =
    extra.followed === undefined
      ? undefined
      : queuedSentence(
          viewer.locale,
          queuedFacts(extra.followed, {
            backfillHours: deps.feeds().backfillHours,
            zone: list.timezone,
            now: deps.now(),
          }),
        );
  return feedsPage({
    viewer,
    subs: list.subscriptions,
    total: list.total,
    start,
    zone: list.timezone,
    now: deps.now(),
    form: extra.form ?? EMPTY_ADD,
    notice: followed === undefined ? extra.notice : viewer.locale.t('web.feeds.subscribed', { followed }),
    error: extra.error,
    filterForm: extra.filterForm,
    imported: extra.imported,
    importError: extra.importError,
    interrupted: await interruptedImport(deps.store, session.accountId, deps.now()),
  });
}

const NOTICES = {
  already: 'web.feeds.notice.already',
  renamed: 'web.feeds.notice.renamed',
  filtered: 'web.feeds.notice.filtered',
  original: 'web.feeds.notice.original',
  feedonly: 'web.feeds.notice.feedonly',
  removed: 'web.feeds.notice.removed',
  share: 'web.feeds.notice.share',
  unmuted: 'web.feeds.notice.unmuted',
  imported: 'web.feeds.notice.imported',
} as const satisfies Record<string, MessageKey>;

const noticeOf = (locale: Locale, code: string): string | undefined =>
  Object.hasOwn(NOTICES, code) ? locale.t(NOTICES[code as keyof typeof NOTICES]) : undefined;

/** The language of a session's pages. */
const localeOfSession = (session: WebSession): Locale => viewerOf(session)?.locale ?? ENGLISH;
const tooLong = (session: WebSession): string =>
  localeOfSession(session).t('web.feeds.tooLong', { max: TITLE_MAX });
const noSuchFeed = (session: WebSession): string => localeOfSession(session).t('web.feeds.noSuchFeed');

/**
 * A filter's refusal: in English the service's message, which names what RE2 said ("Filters: …" on the
 * form of a new feed); in another language the refusal's facts in its words (webRefusal).
 */
function filterWords(err: TidingsError, deps: WebDeps, locale: Locale, framed = true): string {
  if (locale.lang !== 'en') return webRefusal(err, deps.config, locale)?.message ?? '';
  return framed ? locale.t('web.feeds.filtersError', { error: err.message }) : err.message;
}

/**
 * What the page says when the subscriptions service refuses: a filter that cannot run (the only input
 * these forms give that the service checks) in the filter's words; an unknown subscription as a 404 page;
 * the rest as the web's one mapping says. Null for anything else, which the caller rethrows.
 */
function refusal(err: unknown, deps: WebDeps, session: WebSession): string | null {
  if (isTidingsError(err, 'not_found')) throw new WebError(404, noSuchFeed(session));
  const locale = localeOfSession(session);
  if (isTidingsError(err, 'invalid_input')) return filterWords(err, deps, locale);
  return webRefusal(err, deps.config, locale)?.message ?? null;
}

/**
 * What a subscribing's redirect carries (`queued`, `newest`), read back for its notice; anything that is
 * not a count or an ISO time is left out, so a hand-made address says no more than "Subscribed".
 */
function followedParams(request: FastifyRequest): { queued: number; newestItemAt: string | null } {
  const queued = /^\d{1,6}$/.exec(queryParam(request, 'queued') ?? '')?.[0];
  const newest = queryParam(request, 'newest') ?? '';
  const valid = /^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(newest) && Number.isFinite(Date.parse(newest));
  return { queued: queued === undefined ? 0 : Number(queued), newestItemAt: valid ? newest : null };
}

/** Where a share or unmute form goes back to: the Newsletters page when it came from there. */
function backTo(form: URLSearchParams, notice: 'share' | 'unmuted', id: number): string {
  return field(form, 'back') === 'newsletters'
    ? `/newsletters?notice=${notice}#sender-${id}`
    : `/feeds?notice=${notice}#feed-${id}`;
}

/** Feeds: subscribe (with a choice when a page offers several feeds), status, filters, rename, remove. */
export function registerFeeds(scope: FastifyInstance, deps: WebDeps): void {
  const view = (session: WebSession, extra: FeedsExtra) => feedsPageOf(deps, session, extra);

  /** The Feeds page again with a refusal (400), or the error rethrown when it is not one. */
  async function refused(
    reply: FastifyReply,
    session: WebSession,
    err: unknown,
    form?: AddForm,
  ): Promise<FastifyReply> {
    const error = refusal(err, deps, session);
    if (error === null) throw err;
    return sendPage(
      reply,
      400,
      await view(session, form === undefined ? { error } : { form: { ...form, error } }),
    );
  }

  scope.get('/feeds', async (request, reply) => {
    const session = requireSession(request);
    const code = queryParam(request, 'notice') ?? '';
    const imported = /^imported-(\d{1,6})-(\d{1,6})-(\d{1,6})(?:-(\d{1,6}))?$/.exec(code);
    const notice =
      imported === null
        ? noticeOf(localeOfSession(session), code)
        : importSummary(
            localeOfSession(session),
            Number(imported[1]),
            Number(imported[2]),
            Number(imported[3]),
            Number(imported[4] ?? 0),
          );
    const start = startParam(queryParam(request, 'start'));
    const followed = code === 'added' ? followedParams(request) : undefined;
    return sendPage(reply, 200, await view(session, { notice, start, followed }));
  });

  scope.post('/feeds', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const body = formOf(request);
    const form: AddForm = {
      url: (field(body, 'url') ?? '').trim(),
      title: (field(body, 'title') ?? '').trim(),
      include: field(body, 'include') ?? '',
      exclude: field(body, 'exclude') ?? '',
    };
    const refuse = async (error: string) =>
      sendPage(reply, 400, await view(session, { form: { ...form, error } }));
    if (form.url === '') return refuse(localeOfSession(session).t('web.feeds.enterAddress'));
    if (form.title.length > TITLE_MAX) return refuse(tooLong(session));
    const feeds = deps.feeds();
    // Discovery and the first fetch of a slow site can outlast the connection's idle timeout (60 s),
    // which would cut the answer off: this one request may stay quiet as long as both may take.
    allowQuiet(request.raw.socket, followTimeLimitMs(feeds));
    const input = { url: form.url, title: form.title, include: form.include, exclude: form.exclude };
    let result: Followed;
    try {
      // A feed picked from the choice is followed as it is; else a page offering several gets a choice.
      result =
        field(body, 'chosen') === undefined
          ? await followOrChoose(feeds, session.accountId, input)
          : { kind: 'subscribed', ...(await followFeed(feeds, session.accountId, input)) };
    } catch (err) {
      return refused(reply, session, err, form);
    }
    if (result.kind === 'subscribed') {
      if (!result.created) return seeOther(reply, '/feeds?notice=already');
      const newest = result.newestItemAt === null ? '' : `&newest=${encodeURIComponent(result.newestItemAt)}`;
      return seeOther(reply, `/feeds?notice=added&queued=${result.queued}${newest}`);
    }
    const viewer = viewerOf(session);
    if (viewer === null) throw new Error('no viewer for a session');
    return sendPage(reply, 200, choicePage(viewer, form, result.choices));
  });

  scope.post('/feeds/:id/rename', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    const title = (field(formOf(request), 'title') ?? '').trim();
    if (id === null) throw new WebError(404, noSuchFeed(session));
    if (title.length > TITLE_MAX)
      return sendPage(reply, 400, await view(session, { error: tooLong(session) }));
    try {
      await renameFollowed(deps.store, session.accountId, id, title);
    } catch (err) {
      return refused(reply, session, err);
    }
    return seeOther(reply, '/feeds?notice=renamed');
  });

  scope.post('/feeds/:id/filters', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    if (id === null) throw new WebError(404, noSuchFeed(session));
    const body = formOf(request);
    const include = field(body, 'include') ?? '';
    const exclude = field(body, 'exclude') ?? '';
    // A filter that cannot run: the page again, the feed's section open, the error beside its field and
    // what was typed kept; the form's address names the feed, so the browser scrolls back to it.
    const locale = localeOfSession(session);
    const problem = (source: string): string | undefined => {
      const err = filterProblem(source);
      return err === null ? undefined : filterWords(err, deps, locale, false);
    };
    const errors = { include: problem(include), exclude: problem(exclude) };
    if (errors.include !== undefined || errors.exclude !== undefined) {
      const start = startParam(field(body, 'start'));
      return sendPage(
        reply,
        400,
        await view(session, { start, filterForm: { id, include, exclude, errors } }),
      );
    }
    try {
      await changeFilters(deps.store, session.accountId, id, { include, exclude });
    } catch (err) {
      return refused(reply, session, err);
    }
    return seeOther(reply, '/feeds?notice=filtered');
  });

  // The address a refused filters form leaves in the address bar, opened again: back to the feed.
  scope.get('/feeds/:id/filters', (request, reply) => {
    requireSession(request);
    const id = idParam(request);
    return seeOther(reply, id === null ? '/feeds' : `/feeds#feed-${id}`);
  });

  scope.post('/feeds/:id/original', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    if (id === null) throw new WebError(404, noSuchFeed(session));
    const on = field(formOf(request), 'fetch_original') === 'true';
    try {
      await changeFetchOriginal(deps.store, session.accountId, id, on);
    } catch (err) {
      return refused(reply, session, err);
    }
    return seeOther(reply, `/feeds?notice=${on ? 'original' : 'feedonly'}`);
  });

  // Its share of each digest: how many entries, its priority; and "Unmute" (a mute is set from a digest).
  scope.post('/feeds/:id/share', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    if (id === null) throw new WebError(404, noSuchFeed(session));
    const body = formOf(request);
    const perDigest = parsePerDigestChoice(field(body, 'per_digest') ?? '');
    const priority = field(body, 'priority');
    if (perDigest === null || !isPriority(priority)) {
      return sendPage(
        reply,
        400,
        await view(session, { error: localeOfSession(session).t('web.feeds.chooseShare') }),
      );
    }
    try {
      await setDigestShare(deps.store, session.accountId, id, { perDigest, priority });
    } catch (err) {
      return refused(reply, session, err);
    }
    return seeOther(reply, backTo(body, 'share', id));
  });

  scope.post('/feeds/:id/unmute', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    if (id === null) throw new WebError(404, noSuchFeed(session));
    try {
      await setDigestShare(deps.store, session.accountId, id, { mutedUntil: null });
    } catch (err) {
      return refused(reply, session, err);
    }
    return seeOther(reply, backTo(formOf(request), 'unmuted', id));
  });

  scope.post('/feeds/:id/remove', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    if (id === null) throw new WebError(404, noSuchFeed(session));
    try {
      await unsubscribe(deps.store, session.accountId, id);
    } catch (err) {
      return refused(reply, session, err);
    }
    return seeOther(reply, '/feeds?notice=removed');
  });
}
