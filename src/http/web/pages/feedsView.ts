import type { SubscriptionView } from '../../../store/subscriptions.js';
import { sentence } from '../errors.js';
import { type SafeHtml, html, safeHref } from '../html.js';
import { type Viewer, csrfField, page } from '../layout.js';
import { ago, fromNow, timeElement } from '../time.js';

/** The Feeds page and the choice of feeds a web page offers: HTML only (the routes are in feeds.ts). */

/** The longest name a reader may give a feed (the form's maxlength too). */
export const TITLE_MAX = 200;

/**
 * Feeds a page lists: each comes with its forms (rename, filters, unsubscribe), some 3 KB of HTML, and an
 * account may follow 2,000 feeds (TIDINGS_MAX_SUBSCRIPTIONS): all on one page, that was 5 MB rendered in
 * a few hundred milliseconds during which the server answered no one else.
 */
export const FEEDS_PAGE_SIZE = 100;

export interface AddForm {
  url: string;
  title: string;
  include: string;
  exclude: string;
  error?: string;
}

export const EMPTY_ADD: AddForm = { url: '', title: '', include: '', exclude: '' };
export function choicePage(
  viewer: Viewer,
  form: AddForm,
  choices: { url: string; title: string }[],
): SafeHtml {
  return page({
    title: 'Choose a feed',
    viewer,
    current: 'feeds',
    body: html`<h1>Choose a feed</h1>
      <p>
        The page at <span class="mono">${form.url}</span> offers ${choices.length} feeds. Which one do you
        want to follow?
      </p>
      <form class="stack" method="post" action="/feeds">
        ${csrfField(viewer)}
        <input type="hidden" name="chosen" value="1" />
        <input type="hidden" name="title" value="${form.title}" />
        <input type="hidden" name="include" value="${form.include}" />
        <input type="hidden" name="exclude" value="${form.exclude}" />
        <fieldset>
          <legend>Feeds on that page</legend>
          ${choices.map(
            (c, i) =>
              html`<label class="check"
                ><input type="radio" name="url" value="${c.url}" ${i === 0 ? html` checked` : null} />
                <span>${c.title} <span class="muted mono">${c.url}</span></span></label
              >`,
          )}
        </fieldset>
        <div><button type="submit">Follow this feed</button> <a href="/feeds">Cancel</a></div>
      </form>`,
  });
}

export interface FeedsView {
  viewer: Viewer;
  /** One page of the account's feeds, from `start`, of `total`. */
  subs: SubscriptionView[];
  total: number;
  start: number;
  zone: string;
  now: Date;
  form: AddForm;
  notice: string | undefined;
  error: string | undefined;
}

export function feedsPage(v: FeedsView): SafeHtml {
  const invalid = v.form.error !== undefined;
  return page({
    title: 'Feeds',
    viewer: v.viewer,
    current: 'feeds',
    body: html`<h1>Feeds</h1>
      ${v.notice === undefined ? null : html`<p class="notice" role="status">${v.notice}</p>`}
      ${v.error === undefined ? null : html`<p class="error" role="alert">${v.error}</p>`}
      <p>
        New items of the feeds you follow join your queue as they are published, and reach you with your next
        digest.
      </p>
      <h2 id="add-heading">Follow a feed</h2>
      ${invalid ? html`<p class="error" role="alert" id="feed-error">${v.form.error}</p>` : null}
      <form class="stack" method="post" action="/feeds" aria-labelledby="add-heading">
        ${csrfField(v.viewer)}
        <div>
          <label for="feed-url">Address of a feed or of a web page</label>
          <input
            id="feed-url"
            name="url"
            type="url"
            required
            maxlength="2048"
            inputmode="url"
            placeholder="https://"
            value="${v.form.url}"
            ${invalid ? html` aria-invalid="true" aria-describedby="feed-error"` : null}
          />
          <p class="hint">A blog’s or a site’s address works: Tidings finds the feed it links to.</p>
        </div>
        <div>
          <label for="feed-title">Your name for it <span class="muted">(optional)</span></label>
          <input id="feed-title" name="title" type="text" maxlength="${TITLE_MAX}" value="${v.form.title}" />
        </div>
        <details${v.form.include !== '' || v.form.exclude !== '' ? html` open` : null}>
          <summary>Filters <span class="muted">(optional)</span></summary>
          ${filterFields('new', v.form.include, v.form.exclude)}
        </details>
        <div><button type="submit">Follow</button></div>
      </form>
      <h2>Following ${v.total.toLocaleString('en')}</h2>
      ${
        v.total === 0
          ? html`<p class="muted">You follow no feeds yet.</p>`
          : html`<ul class="items">
              ${v.subs.map((s) => feedRow(s, v))}
            </ul>`
      }
      ${pager(v)}
      <h2>Import and export</h2>
      <form class="stack" method="post" action="/feeds/import" enctype="multipart/form-data">
        ${csrfField(v.viewer)}
        <div>
          <label for="opml">An OPML file from another feed reader</label>
          <input
            id="opml"
            name="opml"
            type="file"
            required
            accept=".opml,.xml,text/x-opml,text/xml,application/xml"
          />
        </div>
        <div><button class="quiet" type="submit">Import</button></div>
      </form>
      <p><a href="/feeds/export.opml" download>Export your feeds as OPML</a></p>`,
  });
}

/** Links to the other pages of feeds, when there are more than one. */
function pager(v: FeedsView): SafeHtml | null {
  if (v.total <= FEEDS_PAGE_SIZE) return null;
  const end = v.start + v.subs.length;
  return html`<nav class="pager" aria-label="Feed pages">
    <span>Feeds ${v.subs.length === 0 ? 0 : v.start + 1}–${end} of ${v.total.toLocaleString('en')}</span>
    ${v.start > 0 ? html`<a href="/feeds?start=${Math.max(0, v.start - FEEDS_PAGE_SIZE)}">Earlier feeds</a>` : null}
    ${end < v.total ? html`<a href="/feeds?start=${end}">Later feeds</a>` : null}
  </nav>`;
}

function filterFields(id: string, include: string, exclude: string): SafeHtml {
  return html`<div>
      <label for="include-${id}">Only items matching <span class="muted">(optional)</span></label>
      <input
        id="include-${id}"
        name="include"
        type="text"
        maxlength="1000"
        value="${include}"
        aria-describedby="filter-hint-${id}"
      />
    </div>
    <div>
      <label for="exclude-${id}">Never items matching <span class="muted">(optional)</span></label>
      <input
        id="exclude-${id}"
        name="exclude"
        type="text"
        maxlength="1000"
        value="${exclude}"
        aria-describedby="filter-hint-${id}"
      />
      <p class="hint" id="filter-hint-${id}">
        Words, "exact phrases" or /regular expressions/, separated by commas; matched in the title and
        summary, ignoring case.
      </p>
    </div>`;
}

function feedRow(s: SubscriptionView, v: FeedsView): SafeHtml {
  const status =
    s.status === 'gone'
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
  return html`<li>
    <div class="main">
      ${
        s.siteUrl === null
          ? html`<span class="title">${s.title}</span>`
          : html`<a class="title" href="${safeHref(s.siteUrl)}" rel="noopener noreferrer">${s.title}</a>`
      }
      <div class="meta">
        <span class="mono">${s.url}</span>${s.folder === null ? null : html` · in ${s.folder}`}
      </div>
      <div class="meta">
        ${status} · ${s.itemCount.toLocaleString('en')} item${s.itemCount === 1 ? '' : 's'} seen
      </div>
      ${s.lastError === null || s.status === 'gone' ? null : html`<div class="meta error-text">Last fetch failed: ${sentence(s.lastError)}</div>`}
      ${skippedLine(s, v)}
      ${filters.length === 0 ? null : html`<div class="meta">Filters: ${filters.join('; ')}</div>`}
      ${s.fetchOriginal ? html`<div class="meta">The pages of its items are read too.</div>` : null}
      <details>
        <summary>Change “${s.title}”</summary>
        <form class="stack" method="post" action="/feeds/${s.id}/rename">
          ${csrfField(v.viewer)}
          <div>
            <label for="title-${s.id}">Your name for it (empty: the feed’s own)</label>
            <input id="title-${s.id}" name="title" type="text" maxlength="${TITLE_MAX}" value="${s.title}" />
          </div>
          <div><button class="quiet" type="submit">Rename</button></div>
        </form>
        <form class="stack" method="post" action="/feeds/${s.id}/filters">
          ${csrfField(v.viewer)} ${filterFields(String(s.id), s.includeFilter ?? '', s.excludeFilter ?? '')}
          <div><button class="quiet" type="submit">Save filters</button></div>
        </form>
        <form method="post" action="/feeds/${s.id}/original">
          ${csrfField(v.viewer)}
          <input type="hidden" name="fetch_original" value="${s.fetchOriginal ? 'false' : 'true'}" />
          <button class="quiet" type="submit">
            ${s.fetchOriginal ? 'Stop reading the original pages' : 'Read the original pages of its items'}
          </button>
        </form>
        <form method="post" action="/feeds/${s.id}/remove">
          ${csrfField(v.viewer)}
          <button class="danger" type="submit" aria-label="Unsubscribe from ${s.title}">Unsubscribe</button>
        </form>
      </details>
    </div>
  </li>`;
}

/** Items the feed's rules would have queued and that could not be: how many, and why the last one was not. */
function skippedLine(s: SubscriptionView, v: FeedsView): SafeHtml | null {
  if (s.skippedItems === 0) return null;
  const count = `${s.skippedItems.toLocaleString('en')} item${s.skippedItems === 1 ? '' : 's'}`;
  const last =
    s.lastSkipReason === null || s.lastSkippedAt === null
      ? null
      : html`; the last ${timeElement(s.lastSkippedAt, v.zone, ago(s.lastSkippedAt, v.now))} because
        ${s.lastSkipReason}`;
  return html`<div class="meta error-text">${count} not queued${last}.</div>`;
}
