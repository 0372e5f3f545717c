import {
  DEFAULT_PER_DIGEST,
  PRIORITIES,
  formatPerDigest,
  mutedAt,
  mutedForGood,
  perDigestWords,
} from '../../../lib/digestShare.js';
import type { SubscriptionView } from '../../../store/subscriptions.js';
import { sentence } from '../errors.js';
import { type SafeHtml, html, safeHref } from '../html.js';
import { type Viewer, csrfField } from '../layout.js';
import { ago, fromNow, localTime, timeElement } from '../time.js';
import type { Locale } from '../../../i18n/locale.js';

/**
 * One feed of the Feeds page, with its forms (rename, filters, its share of each digest, original pages,
 * unsubscribe).
 */

/** The longest name a reader may give a feed (the form's maxlength too). */
export const TITLE_MAX = 200;

/** Shown when the feed's last document was not well-formed XML (feedparser's "bozo"). */
export const LENIENT_NOTE =
  'Its last document was not well-formed XML; Tidings read it leniently, so some text may be off.';

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
  const newsletter = s.status === 'newsletter';
  const status = newsletter
    ? html`A newsletter by e-mail: a sender, never fetched`
    : s.status === 'gone'
      ? html`<span class="error-text"
          >The feed is gone: its server says it was removed. It is no longer fetched.</span
        >`
      : html`${
          s.lastFetchedAt === null
            ? 'Not fetched yet'
            : html`Fetched ${timeElement(s.lastFetchedAt, v.zone, ago(s.lastFetchedAt, v.now))}`
        };
        next fetch ${timeElement(s.nextFetchAt, v.zone, fromNow(s.nextFetchAt, v.now))}`;
  const filters = [
    s.includeFilter === null ? null : `only items matching ${s.includeFilter}`,
    s.excludeFilter === null ? null : `never items matching ${s.excludeFilter}`,
  ].filter((f) => f !== null);
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
        <span class="mono">${s.url}</span>${s.folder === null ? null : html` · in ${s.folder}`}
      </div>
      <div class="meta">
        ${newsletter ? status : html`${status} · ${s.itemCount.toLocaleString('en')} item${s.itemCount === 1 ? '' : 's'} seen`}
      </div>
      ${s.lastError === null || s.status === 'gone' ? null : html`<div class="meta error-text">Last fetch failed: ${sentence(s.lastError)}</div>`}
      ${s.readLeniently ? html`<div class="meta">${LENIENT_NOTE}</div>` : null}
      ${skippedLine(s, v)}
      ${filters.length === 0 ? null : html`<div class="meta">Filters: ${filters.join('; ')}</div>`}
      ${s.fetchOriginal ? html`<div class="meta">The pages of its items are read too.</div>` : null}
      ${shareLines(s, v)}
      <details${refused === undefined ? null : html` open`}>
        <summary>Change “${s.title}”</summary>
        <form class="stack" method="post" action="/feeds/${s.id}/rename">
          ${csrfField(v.viewer)}
          <div>
            <label for="title-${s.id}">Your name for it (empty: the feed’s own)</label>
            <input id="title-${s.id}" name="title" type="text" maxlength="${TITLE_MAX}" value="${s.title}" />
          </div>
          <div><button class="quiet" type="submit">Rename</button></div>
        </form>
        ${newsletter ? null : filtersForm(s, v, refused)} ${shareForm(s, v)}
        ${newsletter ? null : originalForm(s, v)}
        <form method="post" action="/feeds/${s.id}/remove">
          ${csrfField(v.viewer)}
          <button class="danger" type="submit" aria-label="Unsubscribe from ${s.title}">Unsubscribe</button>
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
    <div><button class="quiet" type="submit">Save filters</button></div>
  </form>`;
}

/** Reading the original pages of a feed's items, on or off (a newsletter brings its own text). */
function originalForm(s: SubscriptionView, v: RowContext): SafeHtml {
  return html`<form class="toggle" method="post" action="/feeds/${s.id}/original">
    ${csrfField(v.viewer)}
    <input type="hidden" name="fetch_original" value="${s.fetchOriginal ? 'false' : 'true'}" />
    <span id="original-state-${s.id}"
      >Reading the original pages: <strong>${s.fetchOriginal ? 'on' : 'off'}</strong></span
    >
    —
    <button
      class="quiet"
      type="submit"
      aria-describedby="original-state-${s.id}"
      aria-label="${s.fetchOriginal ? 'Turn off' : 'Turn on'} reading the original pages of ${s.title}"
    >
      ${s.fetchOriginal ? 'Turn off' : 'Turn on'}
    </button>
  </form>`;
}

/** Items the feed's rules would have queued and that could not be: how many, and why the last one was not. */
function skippedLine(s: SubscriptionView, v: RowContext): SafeHtml | null {
  if (s.skippedItems === 0) return null;
  const count = `${s.skippedItems.toLocaleString('en')} item${s.skippedItems === 1 ? '' : 's'}`;
  const last =
    s.lastSkipReason === null || s.lastSkippedAt === null
      ? null
      : html`; the last ${timeElement(s.lastSkippedAt, v.zone, ago(s.lastSkippedAt, v.now))} because
        ${s.lastSkipReason}`;
  return html`<div class="meta error-text">${count} not queued${last}.</div>`;
}

/** The numbers the share form offers besides "default" and "all" (and the feed's own, if larger). */
const SHARE_NUMBERS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

/** Its share of each digest when not the default, its priority when not normal, and a mute with Unmute. */
function shareLines(s: SubscriptionView, v: RowContext): SafeHtml {
  const share = s.perDigestDefault
    ? null
    : html`<div class="meta">Each digest shows ${perDigestWords(s.perDigest)}.</div>`;
  const priority =
    s.priority === 'normal'
      ? null
      : html`<div class="meta">
          Priority ${s.priority}:
          ${s.priority === 'high' ? 'placed first.' : 'only counted unless there is room.'}
        </div>`;
  const muted =
    s.mutedUntil === null || !mutedAt(s.mutedUntil, v.now)
      ? null
      : html`<form class="meta" method="post" action="/feeds/${s.id}/unmute">
          ${csrfField(v.viewer)}
          ${
            mutedForGood(s.mutedUntil)
              ? 'Muted until you unmute it (you unsubscribed)'
              : html`Muted until ${timeElement(s.mutedUntil, v.zone, localTime(s.mutedUntil, v.zone))}
                (${v.zone}), ${fromNow(s.mutedUntil, v.now)}`
          }:
          digests only count its items. —
          <button class="link" type="submit" aria-label="Unmute ${s.title}">Unmute</button>
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
  const option = (value: string, label: string) =>
    html`<option value="${value}" ${value === current ? html` selected` : null}>${label}</option>`;
  return html`<form class="stack" method="post" action="/feeds/${s.id}/share">
    ${csrfField(v.viewer)}
    ${back === 'feeds' ? null : html`<input type="hidden" name="back" value="${back}" />`}
    <div class="row">
      <div class="grow">
        <label for="per-digest-${s.id}">In each digest</label>
        <select id="per-digest-${s.id}" name="per_digest" aria-describedby="share-hint-${s.id}">
          ${option('default', `default (${DEFAULT_PER_DIGEST})`)} ${option('all', 'all')}
          ${numbers.map((n) => option(String(n), n === 0 ? '0 (only counted)' : String(n)))}
        </select>
      </div>
      <div class="grow">
        <label for="priority-${s.id}">Priority</label>
        <select id="priority-${s.id}" name="priority">
          ${PRIORITIES.map(
            (p) => html`<option value="${p}" ${p === s.priority ? html` selected` : null}>${p}</option>`,
          )}
        </select>
      </div>
    </div>
    <p class="hint" id="share-hint-${s.id}">
      Entries of this feed each digest shows; the rest are counted on one line, “+N more from”, and stay on
      the digest’s web page. High feeds come first; low ones are only counted unless there is room.
    </p>
    <div><button class="quiet" type="submit">Save</button></div>
  </form>`;
}
