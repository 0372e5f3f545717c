import type { FastifyInstance } from 'fastify';
import { type Account, accountOf, nextDigestOf } from '../../../accounts/profile.js';
import type { Slot } from '../../../digest/schedule.js';
import { type AddOutcome, addSavedUrl } from '../../../queue/add.js';
import {
  type PageCard,
  type PageReadFailure,
  type QueuedItem,
  queuedItemsPage,
} from '../../../queue/reads.js';
import { takeQueuedItem } from '../../../queue/remove.js';
import type { Session as WebSession } from '../../../accounts/sessions.js';
import { domainOf } from '../../../lib/url.js';
import type { MediaLinks } from '../../../lib/mediaUrl.js';
import { excerptOfText } from '../../../digest/view.js';
import {
  type LeadImage,
  deliveredUrl,
  leadImage,
  readingMinutes,
  shownTitle,
  siteName,
  thumbnailSize,
} from '../../../lib/display.js';
import {
  type WebDeps,
  WebError,
  checkCsrf,
  field,
  formOf,
  idParam,
  localeFor,
  queryParam,
  remoteImagesCsp,
  requireSession,
  sendPage,
  seeOther,
  startParam,
  viewerOf,
} from '../context.js';
import { webRefusal } from '../errors.js';
import { SafeHtml, html, safeHref } from '../html.js';
import { type Viewer, csrfField, page } from '../layout.js';
import { ago, dueValues, timeElement } from '../time.js';
import type { Locale, MessageKey } from '../../../i18n/locale.js';
import { searchForm } from './search.js';

export const QUEUE_PAGE_SIZE = 100;

const NOTICES = {
  added: 'web.queue.notice.added',
  title_updated: 'web.queue.notice.titleUpdated',
  already_queued: 'web.queue.notice.alreadyQueued',
  removed: 'web.queue.notice.removed',
  restored: 'web.queue.notice.restored',
} as const satisfies Record<AddOutcome | 'removed' | 'restored', MessageKey>;

const noticeOf = (code: string): (typeof NOTICES)[keyof typeof NOTICES] | undefined =>
  Object.hasOwn(NOTICES, code) ? NOTICES[code as keyof typeof NOTICES] : undefined;

/** A link just removed, that "Undo" puts back: its URL and title as they were saved. */
interface Removed {
  url: string;
  title: string;
}

/**
 * The removed link the address after a removal names (`removed`, `removed_title`), for its "Undo"; null
 * when there is none or it is not one a queue could hold (the form would only be refused).
 */
function removedParams(url: string | undefined, title: string | undefined): Removed | null {
  if (url === undefined || url.length > 2048 || !/^https?:\/\//i.test(url)) return null;
  return { url, title: (title ?? '').slice(0, 1000) };
}

export interface AddForm {
  url: string;
  title: string;
  error?: string;
}

/** The queue: what waits for the next digest; add a URL; remove an item. */
export function registerQueue(scope: FastifyInstance, deps: WebDeps): void {
  async function render(
    session: WebSession,
    start: number,
    form: AddForm,
    notice?: string,
    removed: Removed | null = null,
  ) {
    const account = await accountOf(deps.store, session.accountId);
    const { total, items, pages, failures } = await queuedItemsPage(deps.store, session.accountId, {
      offset: start,
      limit: QUEUE_PAGE_SIZE,
    });
    const viewer = viewerOf(session);
    if (viewer === null) throw new Error('no viewer for a session');
    if (account === null) throw new WebError(404, viewer.locale.t('web.queue.accountGone'));
    const next = await nextDigestOf(deps.store, account);
    const media = await deps.media.links();
    return queuePage({
      viewer,
      account,
      next,
      total,
      items,
      pages,
      failures,
      start,
      form,
      notice,
      removed,
      now: deps.now(),
      media,
    });
  }

  scope.get('/queue', async (request, reply) => {
    const session = requireSession(request);
    const start = startParam(queryParam(request, 'start'));
    const code = queryParam(request, 'notice') ?? '';
    const key = noticeOf(code);
    const notice = key === undefined ? undefined : localeFor(request).t(key);
    const removed =
      code === 'removed'
        ? removedParams(queryParam(request, 'removed'), queryParam(request, 'removed_title'))
        : null;
    return sendPage(reply, 200, await render(session, start, { url: '', title: '' }, notice, removed), {
      'content-security-policy': remoteImagesCsp(await deps.media.links()),
    });
  });

  scope.post('/queue', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const form = formOf(request);
    const url = field(form, 'url') ?? '';
    const title = field(form, 'title') ?? '';
    let outcome: AddOutcome;
    try {
      outcome = await addSavedUrl(
        deps.store,
        session.accountId,
        { url, title: title.trim() === '' ? undefined : title, source: 'api' },
        { limit: deps.config.queueLimit, metrics: deps.metrics, via: 'web' },
      );
    } catch (err) {
      const refused = webRefusal(err, deps.config, localeFor(request));
      if (refused === null) throw err;
      return sendPage(
        reply,
        refused.status,
        await render(session, 0, { url, title, error: refused.message }),
        { 'content-security-policy': remoteImagesCsp(await deps.media.links()) },
      );
    }
    // "Undo" after a removal puts the link back: said as such (the queue only knows it was added).
    const restored = field(form, 'undo') === '1' && outcome === 'added';
    return seeOther(reply, `/queue?notice=${restored ? 'restored' : outcome}`);
  });

  scope.post('/queue/:id/remove', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    const removed = id === null ? null : await takeQueuedItem(deps.store, session.accountId, id);
    if (removed === null) {
      throw new WebError(404, localeFor(request).t('web.queue.notInQueue'));
    }
    const start = startParam(field(formOf(request), 'start'));
    // What was removed rides in the address, so that the page after it can offer "Undo" without a script.
    const undo = `&removed=${encodeURIComponent(removed.url)}&removed_title=${encodeURIComponent(removed.title)}`;
    return seeOther(reply, `/queue?notice=removed${undo}${start > 0 ? `&start=${start}` : ''}`);
  });
}

interface QueueView {
  viewer: Viewer;
  account: Account;
  /** When the next digest will be built. */
  next: Slot | null;
  total: number;
  items: QueuedItem[];
  pages: ReadonlyMap<number, PageCard>;
  /** Why the pages not read could not be, by page id. */
  failures: ReadonlyMap<number, PageReadFailure>;
  start: number;
  form: AddForm;
  notice: string | undefined;
  /** The link just removed, with its "Undo". */
  removed: Removed | null;
  now: Date;
  /** How thumbnails are written (the media proxy's links unless it is off). */
  media: MediaLinks;
}

function queuePage(v: QueueView): SafeHtml {
  const { account, total, start } = v;
  const { locale } = v.viewer;
  const max = account.digest_max_items;
  const due = dueValues(v.next, account.timezone, locale);
  const summary = new SafeHtml(
    total === 0
      ? locale.html('web.queue.empty', due, ['at'])
      : locale.html('web.queue.summary', { ...due, total, max, over: total > max ? 'yes' : 'no' }, ['at']),
  );
  const next = v.items.filter((_, i) => start + i < max);
  const later = v.items.filter((_, i) => start + i >= max);
  const list = (items: QueuedItem[], label: string): SafeHtml | null =>
    items.length === 0
      ? null
      : html`<h2>${label}</h2>
          <ol class="items" start="${start + 1 + (items === later ? next.length : 0)}">
            ${items.map((item) => itemRow(item, v))}
          </ol>`;
  const end = start + v.items.length;
  return page({
    title: locale.t('web.queue.title'),
    locale: v.viewer.locale,
    viewer: v.viewer,
    current: 'queue',
    body: html`<h1>${locale.t('web.queue.title')}</h1>
      ${searchForm(locale)}
      ${
        v.removed !== null
          ? undoNotice(v.viewer, v.removed)
          : v.notice === undefined
            ? null
            : html`<p class="notice" role="status">${v.notice}</p>`
      }
      <p>${summary}</p>
      ${addForm(v.viewer, v.form)} ${list(next, locale.t('web.queue.nextHeading'))}
      ${list(later, locale.t('web.queue.laterHeading'))}
      ${
        total > QUEUE_PAGE_SIZE
          ? html`<nav class="pager" aria-label="${locale.t('web.queue.pagesLabel')}">
              <span
                >${locale.t('web.queue.shown', { first: v.items.length === 0 ? 0 : start + 1, last: end, total })}</span
              >
              ${start > 0 ? html`<a href="/queue?start=${Math.max(0, start - QUEUE_PAGE_SIZE)}">${locale.t('web.queue.earlier')}</a>` : null}
              ${end < total ? html`<a href="/queue?start=${end}">${locale.t('web.queue.later')}</a>` : null}
            </nav>`
          : null
      }`,
  });
}

/**
 * "Removed <title>. Undo": a form that adds the link again, with its title (none when it was saved
 * without one: the API stores the address as the title then), through the "Add" form's own route.
 */
function undoNotice(viewer: Viewer, removed: Removed): SafeHtml {
  const untitled = removed.title === '' || removed.title === removed.url;
  return html`<form class="notice" role="status" method="post" action="/queue">
    ${csrfField(viewer)}
    <input type="hidden" name="url" value="${removed.url}" />
    <input type="hidden" name="title" value="${untitled ? '' : removed.title}" />
    <input type="hidden" name="undo" value="1" />
    ${new SafeHtml(
      viewer.locale.html(
        'web.queue.removedUndo',
        { title: html`<span dir="auto">${untitled ? removed.url : removed.title}</span>`.value },
        ['title'],
      ),
    )}
    <button class="quiet" type="submit">${viewer.locale.t('web.queue.undo')}</button>
  </form>`;
}

/** The "Add a link" form (also the share target's confirmation: pages/share.ts). */
export function addForm(viewer: Viewer, form: AddForm): SafeHtml {
  const invalid = form.error !== undefined;
  const { locale } = viewer;
  return html`<h2 id="add-heading">${locale.t('web.queue.add.heading')}</h2>
    ${invalid ? html`<p class="error" role="alert" id="add-error">${form.error}</p>` : null}
    <form class="stack" method="post" action="/queue" aria-labelledby="add-heading">
      ${csrfField(viewer)}
      <div>
        <label for="url">${locale.t('web.queue.add.address')}</label>
        <input
          id="url"
          name="url"
          type="url"
          required
          maxlength="2048"
          inputmode="url"
          autocomplete="url"
          placeholder="https://"
          value="${form.url}"
          ${invalid ? html` aria-invalid="true" aria-describedby="add-error"` : null}
        />
      </div>
      <div>
        <label for="title"
          >${locale.t('web.queue.add.title')}
          <span class="muted">${locale.t('web.queue.add.optional')}</span></label
        >
        <input
          id="title"
          name="title"
          type="text"
          maxlength="1000"
          value="${form.title}"
          aria-describedby="title-hint"
        />
        <p class="hint" id="title-hint">${locale.t('web.queue.add.titleHint')}</p>
      </div>
      <div><button type="submit">${locale.t('web.queue.add.submit')}</button></div>
    </form>`;
}

/** Thumbnails on the queue page fit a square this many CSS pixels wide. */
const THUMBNAIL_BOX = 96;

function itemRow(item: QueuedItem, v: QueueView): SafeHtml {
  const { locale } = v.viewer;
  const when = timeElement(
    item.created_at,
    v.account.timezone,
    ago(item.created_at, v.now, locale),
    locale,
  ).value;
  const source = new SafeHtml(
    locale.html(
      'web.queue.source',
      {
        source: item.source === 'feed' || item.source === 'newsletter' ? item.source : 'saved',
        known: item.feed_title === null ? 'no' : 'yes',
        from: item.feed_title ?? '',
        when,
      },
      ['when'],
    ),
  );
  const page = item.page_id === null ? null : (v.pages.get(item.page_id) ?? null);
  const title = shownTitle(item.title, item.url, page);
  const where = siteName(page) ?? domainOf(item.url);
  const minutes = locale.minRead(readingMinutes(page));
  const readLabel = locale.t('web.queue.readLabel', { title });
  const read = locale.t('web.queue.read');
  const description = page?.description ?? item.summary;
  const excerpt = description === null ? '' : excerptOfText(description);
  const image = leadImage(page, item.image_url, v.account.show_images);
  const src = image === null ? null : v.media.image(image.url);
  const href = safeHref(deliveredUrl(item.url, v.account.clean_links));
  return html`<li>
    ${image === null || src === null ? null : thumbnail(image, src, href)}
    <div class="main">
      <a class="title" href="${href}" rel="noopener noreferrer" dir="auto">${title}</a>
      <div class="meta">
        ${where === '' ? null : html`${where} · `}${minutes === null ? null : html`${minutes} · `}${source}
      </div>
      ${excerpt === '' ? null : html`<p class="excerpt" dir="auto">${excerpt}</p>`}
      ${failureNote(locale, item.page_id === null ? undefined : v.failures.get(item.page_id))}
      ${
        page?.has_text === true && item.page_id !== null
          ? html`<a class="read" href="/items/${item.page_id}" aria-label="${readLabel}">${read}</a>`
          : null
      }
    </div>
    <form class="actions inline" method="post" action="/queue/${item.id}/remove">
      ${csrfField(v.viewer)}${v.start > 0 ? html`<input type="hidden" name="start" value="${v.start}" />` : null}
      <button class="quiet" type="submit" aria-label="${locale.t('web.queue.removeLabel', { title })}">
        ${locale.t('web.queue.remove')}
      </button>
    </form>
  </li>`;
}

/** A page that could not be read, said in plain words under its item: why, and whether it is tried again. */
function failureNote(locale: Locale, failure: PageReadFailure | undefined): SafeHtml | null {
  if (failure === undefined) return null;
  return html`<p class="meta error-text">
    ${locale.t('web.queue.unread', {
      error: failure.error.replace(/[.\s]+$/, ''),
      gaveUp: failure.gaveUp ? 'yes' : 'no',
    })}
  </p>`;
}

function thumbnail(image: LeadImage, src: string, href: string): SafeHtml {
  const { width, height } = thumbnailSize(image, THUMBNAIL_BOX);
  return html`<a class="thumb" href="${href}" rel="noopener noreferrer" tabindex="-1" aria-hidden="true"
    ><img
      src="${src}"
      width="${width}"
      height="${height}"
      alt="${image.alt}"
      loading="lazy"
      referrerpolicy="no-referrer"
  /></a>`;
}
