import type { InterruptedImport } from '../../../accounts/opml.js';
import { interruptedSentence } from '../../../i18n/sharedSentences.js';
import type { OpmlImport } from '../../../feeds/subscribe/import.js';
import type { SubscriptionView } from '../../../store/subscriptions.js';
import { sentence } from '../errors.js';
import { SafeHtml, html } from '../html.js';
import type { Locale } from '../../../i18n/locale.js';
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
  const { locale } = viewer;
  return page({
    title: locale.t('web.feeds.choose.title'),
    locale,
    viewer,
    current: 'feeds',
    body: html`<h1>${locale.t('web.feeds.choose.title')}</h1>
      <p>
        ${new SafeHtml(
          locale.html(
            'web.feeds.choose.text',
            { url: html`<span class="mono">${form.url}</span>`.value, count: choices.length },
            ['url'],
          ),
        )}
      </p>
      <form class="stack" method="post" action="/feeds">
        ${csrfField(viewer)}
        <input type="hidden" name="chosen" value="1" />
        <input type="hidden" name="title" value="${form.title}" />
        <input type="hidden" name="include" value="${form.include}" />
        <input type="hidden" name="exclude" value="${form.exclude}" />
        <fieldset>
          <legend>${locale.t('web.feeds.choose.legend')}</legend>
          ${choices.map(
            (c, i) =>
              html`<label class="check"
                ><input type="radio" name="url" value="${c.url}" ${i === 0 ? html` checked` : null} />
                <span>${c.title} <span class="muted mono">${c.url}</span></span></label
              >`,
          )}
        </fieldset>
        <div>
          <button type="submit">${locale.t('web.feeds.choose.follow')}</button>
          <a href="/feeds">${locale.t('web.feeds.choose.cancel')}</a>
        </div>
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
export const importSummary = (
  locale: Locale,
  added: number,
  known: number,
  refused: number,
  withoutUrl = 0,
): string => locale.t('web.feeds.imported', { added, known, refused, withoutUrl });

function importResult(locale: Locale, i: OpmlImport): SafeHtml {
  const shown = i.refused.slice(0, REFUSED_SHOWN);
  const more = i.refused.length - shown.length;
  return html`<div class="notice" role="status">
    <p>${importSummary(locale, i.added, i.known, i.refused.length, i.withoutUrl)}</p>
    ${
      shown.length === 0
        ? null
        : html`<p>${locale.t('web.feeds.notImported')}</p>
            <ul>
              ${shown.map((r) => html`<li><span class="mono">${r.url}</span>: ${sentence(r.message)}</li>`)}
            </ul>
            ${more > 0 ? html`<p>${locale.t('web.feeds.notImportedMore', { more })}</p>` : null}`
    }
  </div>`;
}

export function feedsPage(v: FeedsView): SafeHtml {
  const invalid = v.form.error !== undefined;
  const { locale } = v.viewer;
  return page({
    title: locale.t('web.feeds.title'),
    locale,
    viewer: v.viewer,
    current: 'feeds',
    body: html`<h1>${locale.t('web.feeds.title')}</h1>
      ${v.notice === undefined ? null : html`<p class="notice" role="status">${v.notice}</p>`}
      ${v.error === undefined ? null : html`<p class="error" role="alert">${v.error}</p>`}
      ${v.imported === undefined ? null : importResult(locale, v.imported)}
      ${v.interrupted == null ? null : html`<p class="error" role="alert">${interruptedSentence(locale, v.interrupted)}</p>`}
      <p>${locale.t('web.feeds.intro')}</p>
      <h2 id="add-heading">${locale.t('web.feeds.add.heading')}</h2>
      ${invalid ? html`<p class="error" role="alert" id="feed-error">${v.form.error}</p>` : null}
      <form class="stack" method="post" action="/feeds" aria-labelledby="add-heading">
        ${csrfField(v.viewer)}
        <div>
          <label for="feed-url">${locale.t('web.feeds.add.address')}</label>
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
          <p class="hint">${locale.t('web.feeds.add.addressHint')}</p>
        </div>
        <div>
          <label for="feed-title"
            >${locale.t('web.feeds.add.name')} <span class="muted">${locale.t('web.feeds.optional')}</span></label
          >
          <input id="feed-title" name="title" type="text" maxlength="${TITLE_MAX}" value="${v.form.title}" />
        </div>
        <details${v.form.include !== '' || v.form.exclude !== '' ? html` open` : null}>
          <summary>
            ${locale.t('web.feeds.add.filters')} <span class="muted">${locale.t('web.feeds.optional')}</span>
          </summary>
          ${filterFields(locale, 'new', v.form.include, v.form.exclude)}
        </details>
        <div><button type="submit">${locale.t('web.feeds.add.submit')}</button></div>
      </form>
      <h2>${locale.t('web.feeds.following', { total: v.total })}</h2>
      ${
        v.total === 0
          ? html`<p class="muted">${locale.t('web.feeds.none')}</p>`
          : html`<ul class="items">
              ${v.subs.map((sub) => feedRow(sub, v))}
            </ul>`
      }
      ${pager(v)}
      <h2>${locale.t('web.feeds.io.heading')}</h2>
      <form class="stack" method="post" action="/feeds/import" enctype="multipart/form-data">
        ${csrfField(v.viewer)}
        <div>
          <label for="opml">${locale.t('web.feeds.io.file')}</label>
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
        <div><button class="quiet" type="submit">${locale.t('web.feeds.io.import')}</button></div>
      </form>
      <p><a href="/feeds/export.opml" download>${locale.t('web.feeds.io.export')}</a></p>`,
  });
}

/** Links to the other pages of feeds, when there are more than one. */
function pager(v: FeedsView): SafeHtml | null {
  if (v.total <= FEEDS_PAGE_SIZE) return null;
  const end = v.start + v.subs.length;
  const { locale } = v.viewer;
  return html`<nav class="pager" aria-label="${locale.t('web.feeds.pagesLabel')}">
    <span
      >${locale.t('web.feeds.shown', { first: v.subs.length === 0 ? 0 : v.start + 1, last: end, total: v.total })}</span
    >
    ${v.start > 0 ? html`<a href="/feeds?start=${Math.max(0, v.start - FEEDS_PAGE_SIZE)}">${locale.t('web.feeds.earlier')}</a>` : null}
    ${end < v.total ? html`<a href="/feeds?start=${end}">${locale.t('web.feeds.later')}</a>` : null}
  </nav>`;
}
