import {
  DEFAULT_PER_DIGEST,
  PRIORITIES,
  formatPerDigest,
  mutedAt,
  mutedForGood,
} from '../../../lib/digestShare.js';
import type { SubscriptionView } from '../../../store/subscriptions.js';
import { sentence } from '../errors.js';
import { SafeHtml, html, markup, safeHref } from '../html.js';
import { type Viewer, csrfField } from '../layout.js';
import { ago, fromNow, localTime, timeElement } from '../time.js';
import { ENGLISH, type Locale } from '../../../i18n/locale.js';

/**
 * One feed of the Feeds page, with its forms (rename, filters, its share of each digest, original pages,
 * unsubscribe).
 */

/** The longest name a reader may give a feed (the form's maxlength too). */
export const TITLE_MAX = 200;

/** Shown when the feed's last document was not well-formed XML (feedparser's "bozo"). */
export const LENIENT_NOTE = (locale: Locale = ENGLISH): string => locale.t('web.feeds.row.lenient');

/** A feed's filters form as it was sent, when refused: what was typed, and why each field was not taken. */
export interface FilterForm {
  id: number;
  include: string;
  exclude: string;
  errors: { include?: string | undefined; exclude?: string | undefined };
}

export interface RowContext {
  viewer: Viewer;
  zone: string;
  now: Date;
  /** The page of feeds shown, so that a refused form comes back to it. */
  start: number;
  filterForm?: FilterForm | undefined;
}

export function filterFields(
  locale: Locale,
  id: string,
  include: string,
  exclude: string,
  errors: FilterForm['errors'] = {},
): SafeHtml {
  const field = (name: 'include' | 'exclude', label: string, value: string, hint: SafeHtml | null) => {
    const error = errors[name];
    const errorId = `${name}-${id}-error`;
    return html`<div>
      <label for="${name}-${id}">${label} <span class="muted">${locale.t('web.feeds.optional')}</span></label>
      ${error === undefined ? null : html`<p class="error" id="${errorId}" role="alert">${sentence(error)}</p>`}
      <input
        id="${name}-${id}"
        name="${name}"
        type="text"
        maxlength="1000"
        value="${value}"
        aria-describedby="${error === undefined ? '' : `${errorId} `}filter-hint-${id}"
        ${error === undefined ? null : html` aria-invalid="true"`}
      />
      ${hint}
    </div>`;
  };
  return html`${field('include', locale.t('web.feeds.filter.include'), include, null)}
  ${field(
    'exclude',
    locale.t('web.feeds.filter.exclude'),
    exclude,
    html`<p class="hint" id="filter-hint-${id}">${locale.t('web.feeds.filter.hint')}</p>`,
  )}`;
}

export function feedRow(s: SubscriptionView, v: RowContext): SafeHtml {
  const { locale } = v.viewer;
  const at = (iso: string, words: string): string => timeElement(iso, v.zone, words, locale).value;
  const newsletter = s.status === 'newsletter';
  const status = newsletter
    ? html`${locale.t('web.feeds.row.newsletter')}`
    : s.status === 'gone'
      ? html`<span class="error-text">${locale.t('web.feeds.row.gone')}</span>`
      : new SafeHtml(
          locale.html(
            'web.feeds.row.fetch',
            {
              fetched: s.lastFetchedAt === null ? 'no' : 'yes',
              last: s.lastFetchedAt === null ? '' : at(s.lastFetchedAt, ago(s.lastFetchedAt, v.now, locale)),
              next: at(s.nextFetchAt, fromNow(s.nextFetchAt, v.now, locale)),
            },
            ['last', 'next'],
          ),
        );
  const filters =
    s.includeFilter === null && s.excludeFilter === null
      ? null
      : locale.t('web.feeds.row.filters', {
          only: s.includeFilter === null ? 'no' : 'yes',
          include: s.includeFilter ?? '',
          never: s.excludeFilter === null ? 'no' : 'yes',
          exclude: s.excludeFilter ?? '',
        });
  const refused = v.filterForm?.id === s.id ? v.filterForm : undefined;
  return html`<li id="feed-${s.id}">
    <div class="main">
      ${
        s.siteUrl === null
          ? html`<span class="title" dir="auto">${s.title}</span>`
          : html`<a class="title" href="${safeHref(s.siteUrl)}" rel="noopener noreferrer" dir="auto"
              >${s.title}</a
            >`
      }
      <div class="meta">
        <span class="mono">${s.url}</span>${s.folder === null ? null : html` · ${locale.t('web.feeds.row.folder', { folder: s.folder })}`}
      </div>
      <div class="meta">
        ${newsletter ? status : html`${status} · ${locale.t('web.feeds.row.seen', { count: s.itemCount })}`}
      </div>
      ${failedLine(s, locale)}
      ${s.readLeniently ? html`<div class="meta">${LENIENT_NOTE(locale)}</div>` : null}
      ${skippedLine(s, v)}
      ${filters === null ? null : html`<div class="meta">${filters}</div>`}
      ${s.fetchOriginal ? html`<div class="meta">${locale.t('web.feeds.row.original')}</div>` : null}
      ${shareLines(s, v)}
      <details${refused === undefined ? null : html` open`}>
        <summary>${locale.t('web.feeds.row.change', { title: s.title })}</summary>
        <form class="stack" method="post" action="/feeds/${s.id}/rename">
          ${csrfField(v.viewer)}
          <div>
            <label for="title-${s.id}">${locale.t('web.feeds.row.name')}</label>
            <input id="title-${s.id}" name="title" type="text" maxlength="${TITLE_MAX}" value="${s.title}" />
          </div>
          <div><button class="quiet" type="submit">${locale.t('web.feeds.row.rename')}</button></div>
        </form>
        ${newsletter ? null : filtersForm(s, v, refused)} ${shareForm(s, v)}
        ${newsletter ? null : originalForm(s, v)}
        <form method="post" action="/feeds/${s.id}/remove">
          ${csrfField(v.viewer)}
          <button
            class="danger"
            type="submit"
            aria-label="${locale.t('web.feeds.row.unsubscribeLabel', { title: s.title })}"
          >${locale.t('web.feeds.row.unsubscribe')}</button>
        </form>
      </details>
    </div>
  </li>`;
}

/** The form of a feed's filters (a newsletter's sender has none: each message is one entry). */
function filtersForm(s: SubscriptionView, v: RowContext, refused: FilterForm | undefined): SafeHtml {
  return html`<form class="stack" method="post" action="/feeds/${s.id}/filters#feed-${s.id}">
    ${csrfField(v.viewer)} <input type="hidden" name="start" value="${v.start}" />
    ${filterFields(
      v.viewer.locale,
      String(s.id),
      refused?.include ?? s.includeFilter ?? '',
      refused?.exclude ?? s.excludeFilter ?? '',
      refused?.errors,
    )}
    <div><button class="quiet" type="submit">${v.viewer.locale.t('web.feeds.row.saveFilters')}</button></div>
  </form>`;
}

/** Reading the original pages of a feed's items, on or off (a newsletter brings its own text). */
function originalForm(s: SubscriptionView, v: RowContext): SafeHtml {
  const { locale } = v.viewer;
  const on = s.fetchOriginal ? 'yes' : 'no';
  return html`<form class="toggle" method="post" action="/feeds/${s.id}/original">
    ${csrfField(v.viewer)}
    <input type="hidden" name="fetch_original" value="${s.fetchOriginal ? 'false' : 'true'}" />
    <span id="original-state-${s.id}"
      >${new SafeHtml(
        locale.html('web.feeds.row.originalState', { on, ...markup.strong }, markup.strongNames),
      )}</span
    >
    —
    <button
      class="quiet"
      type="submit"
      aria-describedby="original-state-${s.id}"
      aria-label="${locale.t('web.feeds.row.toggleLabel', { on, title: s.title })}"
    >
      ${locale.t('web.feeds.row.toggle', { on })}
    </button>
  </form>`;
}

/** Items the feed's rules would have queued and that could not be: how many, and why the last one was not. */
function skippedLine(s: SubscriptionView, v: RowContext): SafeHtml | null {
  if (s.skippedItems === 0) return null;
  const { locale } = v.viewer;
  const known = s.lastSkipReason !== null && s.lastSkippedAt !== null;
  const when =
    s.lastSkippedAt === null
      ? ''
      : timeElement(s.lastSkippedAt, v.zone, ago(s.lastSkippedAt, v.now, locale), locale).value;
  return html`<div class="meta error-text">
    ${new SafeHtml(
      locale.html(
        'web.feeds.row.skipped',
        { count: s.skippedItems, known: known ? 'yes' : 'no', when, reason: s.lastSkipReason ?? '' },
        ['when'],
      ),
    )}
  </div>`;
}

/** The numbers the share form offers besides "default" and "all" (and the feed's own, if larger). */
const SHARE_NUMBERS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

/** Its share of each digest when not the default, its priority when not normal, and a mute with Unmute. */
function shareLines(s: SubscriptionView, v: RowContext): SafeHtml {
  const { locale } = v.viewer;
  const share = s.perDigestDefault
    ? null
    : html`<div class="meta">
        ${locale.t('web.feeds.row.share', {
          all: s.perDigest === 'all' ? 'yes' : 'no',
          n: s.perDigest === 'all' ? 0 : s.perDigest,
        })}
      </div>`;
  const priority =
    s.priority === 'normal'
      ? null
      : html`<div class="meta">${locale.t('web.feeds.row.priority', { priority: s.priority })}</div>`;
  const unmuteLabel = locale.t('web.feeds.row.unmuteLabel', { title: s.title });
  const unmute = locale.t('web.feeds.row.unmute');
  const muted =
    s.mutedUntil === null || !mutedAt(s.mutedUntil, v.now)
      ? null
      : html`<form class="meta" method="post" action="/feeds/${s.id}/unmute">
          ${csrfField(v.viewer)}
          ${
            mutedForGood(s.mutedUntil)
              ? locale.t('web.feeds.row.mutedForGood')
              : new SafeHtml(
                  locale.html(
                    'web.feeds.row.muted',
                    {
                      until: timeElement(
                        s.mutedUntil,
                        v.zone,
                        localTime(s.mutedUntil, v.zone, locale),
                        locale,
                      ).value,
                      zone: v.zone,
                      fromNow: fromNow(s.mutedUntil, v.now, locale),
                    },
                    ['until'],
                  ),
                )
          }
          —
          <button class="link" type="submit" aria-label="${unmuteLabel}">${unmute}</button>
        </form>`;
  return html`${share}${priority}${muted}`;
}

/** Where a share or unmute form sends the reader back to: the Feeds page, or the Newsletters page. */
export type ShareBack = 'feeds' | 'newsletters';

/**
 * "In each digest: [default (3) | all | 0..10]  Priority: [high | normal | low]". The Newsletters page
 * shows it for each sender (`back`), posting to the same action.
 */
export function shareForm(
  s: Pick<SubscriptionView, 'id' | 'perDigest' | 'perDigestDefault' | 'priority'>,
  v: Pick<RowContext, 'viewer'>,
  back: ShareBack = 'feeds',
): SafeHtml {
  const current = s.perDigestDefault ? 'default' : formatPerDigest(s.perDigest);
  const numbers =
    typeof s.perDigest === 'number' && !SHARE_NUMBERS.includes(s.perDigest)
      ? [...SHARE_NUMBERS, s.perDigest]
      : SHARE_NUMBERS;
  const { locale } = v.viewer;
  const selected = html` selected`;
  const priorityName = (priority: string): string => locale.t('web.feeds.share.priorityName', { priority });
  const option = (value: string, label: string) =>
    html`<option value="${value}" ${value === current ? html` selected` : null}>${label}</option>`;
  return html`<form class="stack" method="post" action="/feeds/${s.id}/share">
    ${csrfField(v.viewer)}
    ${back === 'feeds' ? null : html`<input type="hidden" name="back" value="${back}" />`}
    <div class="row">
      <div class="grow">
        <label for="per-digest-${s.id}">${locale.t('web.feeds.share.label')}</label>
        <select id="per-digest-${s.id}" name="per_digest" aria-describedby="share-hint-${s.id}">
          ${option('default', locale.t('web.feeds.share.default', { n: DEFAULT_PER_DIGEST }))}
          ${option('all', locale.t('web.feeds.share.all'))}
          ${numbers.map((n) => option(String(n), n === 0 ? locale.t('web.feeds.share.zero') : locale.number(n)))}
        </select>
      </div>
      <div class="grow">
        <label for="priority-${s.id}">${locale.t('web.feeds.share.priority')}</label>
        <select id="priority-${s.id}" name="priority">
          ${PRIORITIES.map(
            (p) =>
              html`<option value="${p}" ${p === s.priority ? selected : null}>${priorityName(p)}</option>`,
          )}
        </select>
      </div>
    </div>
    <p class="hint" id="share-hint-${s.id}">${locale.t('web.feeds.share.hint')}</p>
    <div><button class="quiet" type="submit">${locale.t('web.feeds.share.save')}</button></div>
  </form>`;
}

/**
 * Why the last fetch failed. English shows the fetcher's own words (they name the host and the status
 * line); another language words the failure's code, kept beside them since migration 0076. An error
 * recorded before that has only the words, shown as they are.
 */
function failedLine(s: SubscriptionView, locale: Locale): SafeHtml | null {
  if (s.lastError === null || s.status === 'gone') return null;
  const words =
    locale.lang === 'en' || s.lastErrorReason === null
      ? locale.t('web.feeds.row.failed', { error: sentence(s.lastError) })
      : locale.t('web.feeds.row.failure', {
          failure: s.lastErrorReason,
          status: String(s.lastErrorStatus ?? ''),
        });
  return html`<div class="meta error-text">${words}</div>`;
}
