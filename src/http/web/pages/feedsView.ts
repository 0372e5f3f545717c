import { type InterruptedImport, interruptedWords } from '../../../accounts/opml.js';
import type { OpmlImport } from '../../../feeds/subscribe/import.js';
import type { SubscriptionView } from '../../../store/subscriptions.js';
import { sentence } from '../errors.js';
import { type SafeHtml, html } from '../html.js';
import { type Viewer, csrfField, page } from '../layout.js';
import { type FilterForm, TITLE_MAX, feedRow, filterFields } from './feedRow.js';

/** The Feeds page and the choice of feeds a web page offers: HTML only (the routes are in feeds.ts). */

export { TITLE_MAX } from './feedRow.js';

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
    locale: viewer.locale,
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
  /** A feed's filters form that was refused, shown open with what was typed. */
  filterForm?: FilterForm | undefined;
  /** An OPML import just done (shown with the feeds it refused), or why the file was not taken. */
  imported?: OpmlImport | undefined;
  importError?: string | undefined;
  /** The account's last OPML import, when it was cut short. */
  interrupted?: InterruptedImport | null | undefined;
}

/** The refused feeds an import summary lists; the rest are counted. */
export const REFUSED_SHOWN = 20;

/** "Imported 2 feeds (0 you already followed, 1 refused)." */
export const importSummary = (added: number, known: number, refused: number, withoutUrl = 0): string =>
  `Imported ${added} feed${added === 1 ? '' : 's'} (${known} you already followed, ${refused} refused${withoutUrl === 0 ? '' : `, ${withoutUrl} outline${withoutUrl === 1 ? '' : 's'} without a feed address skipped`}). They are fetched within minutes.`;

function importResult(i: OpmlImport): SafeHtml {
  const shown = i.refused.slice(0, REFUSED_SHOWN);
  const more = i.refused.length - shown.length;
  return html`<div class="notice" role="status">
    <p>${importSummary(i.added, i.known, i.refused.length, i.withoutUrl)}</p>
    ${
      shown.length === 0
        ? null
        : html`<p>Not imported:</p>
            <ul>
              ${shown.map((r) => html`<li><span class="mono">${r.url}</span>: ${sentence(r.message)}</li>`)}
            </ul>
            ${more > 0 ? html`<p>and ${more.toLocaleString('en')} more.</p>` : null}`
    }
  </div>`;
}

export function feedsPage(v: FeedsView): SafeHtml {
  const invalid = v.form.error !== undefined;
  return page({
    title: 'Feeds',
    locale: v.viewer.locale,
    viewer: v.viewer,
    current: 'feeds',
    body: html`<h1>Feeds</h1>
      ${v.notice === undefined ? null : html`<p class="notice" role="status">${v.notice}</p>`}
      ${v.error === undefined ? null : html`<p class="error" role="alert">${v.error}</p>`}
      ${v.imported === undefined ? null : importResult(v.imported)}
      ${v.interrupted == null ? null : html`<p class="error" role="alert">${interruptedWords(v.interrupted)}</p>`}
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
              ${v.subs.map((sub) => feedRow(sub, v))}
            </ul>`
      }
      ${pager(v)}
      <h2>Import and export</h2>
      <form class="stack" method="post" action="/feeds/import" enctype="multipart/form-data">
        ${csrfField(v.viewer)}
        <div>
          <label for="opml">An OPML file from another feed reader</label>
          ${
            v.importError === undefined
              ? null
              : html`<p class="error" role="alert" id="opml-error">${v.importError}</p>`
          }
          <input
            id="opml"
            name="opml"
            type="file"
            required
            accept=".opml,.xml,text/x-opml,text/xml,application/xml"
            ${v.importError === undefined ? null : html` aria-invalid="true" aria-describedby="opml-error"`}
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
