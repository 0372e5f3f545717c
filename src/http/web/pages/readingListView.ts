import type { ReadingListFilter, ReadingListView, ReadingListed } from '../../../accounts/readingList.js';
import { type ImportCounts, countsWords } from '../../../imports/counts.js';
import { IMPORT_FORMATS, IMPORT_LIMITS } from '../../../imports/record.js';
import { domainOf } from '../../../lib/url.js';
import { type SafeHtml, html, safeHref } from '../html.js';
import { type Viewer, csrfField, page } from '../layout.js';
import { ago, timeElement } from '../time.js';
import { searchForm } from './search.js';

/** Items per page of the list. */
export const READING_PAGE_SIZE = 50;
/** Tags offered as filters (the most used); the one filtered by is always among them. */
const TAGS_SHOWN = 40;

/** What an upload came to: its counts, or why nothing of it was imported. */
export type ImportOutcome = { counts: ImportCounts } | { error: string };

export interface ReadingListPageView {
  viewer: Viewer;
  view: ReadingListView;
  filter: ReadingListFilter;
  start: number;
  timezone: string;
  now: Date;
  notice: string | undefined;
  outcome: ImportOutcome | null;
}

/** The list's address with this filter and first item (the defaults left out). */
export function listHref(filter: ReadingListFilter, start = 0): string {
  const query = new URLSearchParams();
  if (filter.state !== 'unread') query.set('state', filter.state);
  if (filter.tag !== null) query.set('tag', filter.tag);
  if (start > 0) query.set('start', String(start));
  const text = query.toString();
  return text === '' ? '/reading-list' : `/reading-list?${text}`;
}

const FORMAT_NAMES: Record<(typeof IMPORT_FORMATS)[number], string> = {
  pocket: 'Pocket (CSV, zip or ril_export.html)',
  instapaper: 'Instapaper (CSV)',
  omnivore: 'Omnivore (zip or metadata JSON)',
  wallabag: 'Wallabag (JSON)',
  bookmarks: 'Browser bookmarks (HTML)',
};

export function readingListPage(v: ReadingListPageView): SafeHtml {
  const { view, filter, start } = v;
  const all = view.counts.unread + view.counts.archived;
  const end = start + view.items.length;
  return page({
    title: 'Reading list',
    locale: v.viewer.locale,
    viewer: v.viewer,
    current: 'reading-list',
    body: html`<h1>Reading list</h1>
      ${searchForm(v.viewer.locale)}
      ${v.notice === undefined ? null : html`<p class="notice" role="status">${v.notice}</p>`}
      ${outcomeOf(v.outcome)}
      ${
        all === 0
          ? html`<p>
              Your reading list is empty. Bring the links you saved elsewhere: export them from Pocket,
              Instapaper, Omnivore, Wallabag or your browser's bookmarks, and import the file below (or on the
              server, <code>tidings import --account ID FILE</code>). They wait here, apart from your queue,
              so that they never flood a digest.
            </p>`
          : html`<p>
                ${view.counts.unread.toLocaleString('en')} unread,
                ${view.counts.archived.toLocaleString('en')} archived. Newest saved first.
              </p>
              ${stateFilter(filter, view)} ${tagFilter(filter, view)}
              ${
                view.items.length === 0
                  ? html`<p>${emptyWords(filter)}</p>`
                  : html`<ol class="items reading" start="${start + 1}">
                      ${view.items.map((item) => itemRow(item, v))}
                    </ol>`
              }
              ${pager(filter, start, end, view.total)}`
      }
      ${uploadForm(v.viewer)}`,
  });
}

function outcomeOf(outcome: ImportOutcome | null): SafeHtml | null {
  if (outcome === null) return null;
  if ('error' in outcome) return html`<p class="error" role="alert" id="import-error">${outcome.error}</p>`;
  const c = outcome.counts;
  return html`<div class="notice" role="status" id="import-result">
    <p>${countsWords(c)}</p>
    <dl class="counts">
      <dt>Format</dt>
      <dd>${c.format}</dd>
      <dt>Rows</dt>
      <dd>${c.rows}</dd>
      <dt>Imported</dt>
      <dd>${c.imported}</dd>
      <dt>Merged</dt>
      <dd>${c.merged}</dd>
      <dt>Duplicates</dt>
      <dd>${c.duplicates}</dd>
      <dt>Bad</dt>
      <dd>${c.bad}</dd>
    </dl>
    ${
      c.badExamples.length === 0
        ? null
        : html`<ul class="bad">
            ${c.badExamples.map((b) => html`<li>Skipped ${b.where}: ${b.why}</li>`)}
          </ul>`
    }
  </div>`;
}

function stateFilter(filter: ReadingListFilter, view: ReadingListView): SafeHtml {
  const states = [
    ['unread', 'Unread', view.counts.unread],
    ['archived', 'Archived', view.counts.archived],
    ['all', 'All', view.counts.unread + view.counts.archived],
  ] as const;
  return html`<nav aria-label="Show">
    <ul>
      ${states.map(
        ([state, label, n]) =>
          html`<li>
            <a
              href="${listHref({ ...filter, state })}"
              ${filter.state === state ? html` aria-current="page"` : null}
              >${label} (${n.toLocaleString('en')})</a
            >
          </li>`,
      )}
    </ul>
  </nav>`;
}

function tagFilter(filter: ReadingListFilter, view: ReadingListView): SafeHtml | null {
  const shown = view.tags.slice(0, TAGS_SHOWN);
  if (filter.tag !== null && !shown.some((t) => t.tag === filter.tag)) {
    shown.push({ tag: filter.tag, count: view.tags.find((t) => t.tag === filter.tag)?.count ?? 0 });
  }
  if (shown.length === 0) return null;
  return html`<nav aria-label="Tags">
    <ul class="tags">
      ${filter.tag === null ? null : html`<li><a href="${listHref({ ...filter, tag: null })}">Any tag</a></li>`}
      ${shown.map(
        (t) =>
          html`<li>
            <a
              href="${listHref({ ...filter, tag: t.tag })}"
              ${filter.tag === t.tag ? html` aria-current="page"` : null}
              >#${t.tag} (${t.count.toLocaleString('en')})</a
            >
          </li>`,
      )}
    </ul>
  </nav>`;
}

function emptyWords(filter: ReadingListFilter): string {
  const which = filter.state === 'all' ? '' : `${filter.state} `;
  if (filter.tag === null && filter.state === 'unread')
    return 'No unread items: everything here is archived.';
  return `No ${which}items${filter.tag === null ? '' : ` tagged ${filter.tag}`}.`;
}

function pager(filter: ReadingListFilter, start: number, end: number, total: number): SafeHtml | null {
  if (total <= READING_PAGE_SIZE && start === 0) return null;
  return html`<nav class="pager" aria-label="Reading list pages">
    <span>Items ${end === start ? 0 : start + 1}–${end} of ${total.toLocaleString('en')}</span>
    ${start > 0 ? html`<a href="${listHref(filter, Math.max(0, start - READING_PAGE_SIZE))}">Newer</a>` : null}
    ${end < total ? html`<a href="${listHref(filter, end)}">Older</a>` : null}
  </nav>`;
}

function itemRow(item: ReadingListed, v: ReadingListPageView): SafeHtml {
  const { filter } = v;
  const tags = item.tags.split('\n').filter((t) => t !== '');
  const archived = item.state === 'archived';
  const action = archived ? 'unarchive' : 'archive';
  return html`<li>
    <div class="main">
      <a class="title" href="${safeHref(item.url)}" rel="noopener noreferrer" dir="auto">${item.title}</a>
      <div class="meta">
        ${domainOf(item.url)} · saved ${timeElement(item.saved_at, v.timezone, ago(item.saved_at, v.now))} ·
        ${archived ? 'archived' : 'unread'}
        ${tags.map((t) => html` · <a href="${listHref({ ...filter, tag: t })}">#${t}</a>`)}
      </div>
    </div>
    <form class="actions inline" method="post" action="/reading-list/${item.id}/${action}">
      ${csrfField(v.viewer)}
      ${filter.state === 'unread' ? null : html`<input type="hidden" name="state" value="${filter.state}" />`}
      ${filter.tag === null ? null : html`<input type="hidden" name="tag" value="${filter.tag}" />`}
      ${v.start > 0 ? html`<input type="hidden" name="start" value="${v.start}" />` : null}
      <button class="quiet" type="submit" aria-label="${archived ? 'Unarchive' : 'Archive'} ${item.title}">
        ${archived ? 'Unarchive' : 'Archive'}
      </button>
    </form>
  </li>`;
}

function uploadForm(viewer: Viewer): SafeHtml {
  return html`<h2 id="import-heading">Import a reading list</h2>
    <form
      class="stack"
      method="post"
      action="/reading-list/import"
      enctype="multipart/form-data"
      aria-labelledby="import-heading"
    >
      ${csrfField(viewer)}
      <div>
        <label for="export-file">Export file</label>
        <input
          id="export-file"
          name="export"
          type="file"
          required
          accept=".csv,.html,.htm,.json,.zip"
          aria-describedby="export-hint"
        />
        <p class="hint" id="export-hint">
          At most ${IMPORT_LIMITS.fileBytes / 1024 / 1024} MB and ${IMPORT_LIMITS.rows.toLocaleString('en')}
          links. Importing the same file again changes nothing; links you have already are merged (tags
          joined, the earliest saved date kept), and what you archived or unarchived here stays so.
        </p>
      </div>
      <div>
        <label for="export-format">Format</label>
        <select id="export-format" name="format">
          <option value="auto" selected>Recognise it</option>
          ${IMPORT_FORMATS.map((f) => html`<option value="${f}">${FORMAT_NAMES[f]}</option>`)}
        </select>
      </div>
      <div><button type="submit">Import</button></div>
    </form>`;
}
