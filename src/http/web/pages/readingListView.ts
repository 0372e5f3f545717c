import type { ReadingListFilter, ReadingListView, ReadingListed } from '../../../accounts/readingList.js';
import type { ImportCounts } from '../../../imports/counts.js';
import { IMPORT_FORMATS, IMPORT_LIMITS } from '../../../imports/record.js';
import type { Locale } from '../../../i18n/locale.js';
import { domainOf } from '../../../lib/url.js';
import { SafeHtml, html, safeHref } from '../html.js';
import type { LabelKey } from '../localeTime.js';
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

/** The formats the form offers, by the words of each. */
const FORMAT_NAMES: Record<(typeof IMPORT_FORMATS)[number], LabelKey> = {
  pocket: 'web.readingList.import.pocket',
  instapaper: 'web.readingList.import.instapaper',
  omnivore: 'web.readingList.import.omnivore',
  wallabag: 'web.readingList.import.wallabag',
  bookmarks: 'web.readingList.import.bookmarks',
};

/** The command that imports a file on the server: a machine word, never translated. */
const IMPORT_COMMAND = 'tidings import --account ID FILE';

export function readingListPage(v: ReadingListPageView): SafeHtml {
  const { view, filter, start } = v;
  const { locale } = v.viewer;
  const all = view.counts.unread + view.counts.archived;
  const end = start + view.items.length;
  const command = html`<code>${IMPORT_COMMAND}</code>`.value;
  return page({
    title: locale.t('web.readingList.title'),
    locale,
    viewer: v.viewer,
    current: 'reading-list',
    body: html`<h1>${locale.t('web.readingList.title')}</h1>
      ${searchForm(locale)}
      ${v.notice === undefined ? null : html`<p class="notice" role="status">${v.notice}</p>`}
      ${outcomeOf(v.outcome, locale)}
      ${
        all === 0
          ? html`<p>${new SafeHtml(locale.html('web.readingList.empty', { command }, ['command']))}</p>`
          : html`<p>
                ${locale.t('web.readingList.summary', {
                  unread: view.counts.unread,
                  archived: view.counts.archived,
                })}
              </p>
              ${stateFilter(filter, view, locale)} ${tagFilter(filter, view, locale)}
              ${
                view.items.length === 0
                  ? html`<p>${emptyWords(filter, locale)}</p>`
                  : html`<ol class="items reading" start="${start + 1}">
                      ${view.items.map((item) => itemRow(item, v))}
                    </ol>`
              }
              ${pager(filter, start, end, view.total, locale)}`
      }
      ${uploadForm(v.viewer)}`,
  });
}

/**
 * What an upload came to. The counts' sentence says in English what the CLI's `tidings import` prints (its
 * contract line, src/i18n/sharedSentences.ts `importCountsSentence`); a bad row's where and why are the file reader's own words.
 */
function outcomeOf(outcome: ImportOutcome | null, locale: Locale): SafeHtml | null {
  if (outcome === null) return null;
  if ('error' in outcome) return html`<p class="error" role="alert" id="import-error">${outcome.error}</p>`;
  const c = outcome.counts;
  const counted = (label: LabelKey, n: number) =>
    html`<dt>${locale.t(label)}</dt>
      <dd>${locale.number(n)}</dd>`;
  return html`<div class="notice" role="status" id="import-result">
    <p>
      ${locale.t('web.readingList.imported', {
        imported: c.imported,
        format: c.format,
        rows: c.rows,
        merged: c.merged,
        duplicates: c.duplicates,
        bad: c.bad,
        listed: c.bad > c.badExamples.length ? c.badExamples.length : 0,
      })}
    </p>
    <dl class="counts">
      <dt>${locale.t('web.readingList.import.format')}</dt>
      <dd>${c.format}</dd>
      ${counted('web.readingList.counts.rows', c.rows)}
      ${counted('web.readingList.counts.imported', c.imported)}
      ${counted('web.readingList.counts.merged', c.merged)}
      ${counted('web.readingList.counts.duplicates', c.duplicates)}
      ${counted('web.readingList.counts.bad', c.bad)}
    </dl>
    ${
      c.badExamples.length === 0
        ? null
        : html`<ul class="bad">
            ${c.badExamples.map((b) => html`<li>${locale.t('web.readingList.skipped', b)}</li>`)}
          </ul>`
    }
  </div>`;
}

function stateFilter(filter: ReadingListFilter, view: ReadingListView, locale: Locale): SafeHtml {
  const states = [
    ['unread', view.counts.unread],
    ['archived', view.counts.archived],
    ['all', view.counts.unread + view.counts.archived],
  ] as const;
  return html`<nav aria-label="${locale.t('web.readingList.showLabel')}">
    <ul>
      ${states.map(
        ([state, n]) =>
          html`<li>
            <a
              href="${listHref({ ...filter, state })}"
              ${filter.state === state ? html` aria-current="page"` : null}
              >${locale.t('web.readingList.state', { state, n })}</a
            >
          </li>`,
      )}
    </ul>
  </nav>`;
}

function tagFilter(filter: ReadingListFilter, view: ReadingListView, locale: Locale): SafeHtml | null {
  const shown = view.tags.slice(0, TAGS_SHOWN);
  if (filter.tag !== null && !shown.some((t) => t.tag === filter.tag)) {
    shown.push({ tag: filter.tag, count: view.tags.find((t) => t.tag === filter.tag)?.count ?? 0 });
  }
  if (shown.length === 0) return null;
  return html`<nav aria-label="${locale.t('web.readingList.tagsLabel')}">
    <ul class="tags">
      ${
        filter.tag === null
          ? null
          : html`<li>
              <a href="${listHref({ ...filter, tag: null })}">${locale.t('web.readingList.anyTag')}</a>
            </li>`
      }
      ${shown.map(
        (t) =>
          html`<li>
            <a
              href="${listHref({ ...filter, tag: t.tag })}"
              ${filter.tag === t.tag ? html` aria-current="page"` : null}
              >${locale.t('web.readingList.tag', { tag: t.tag, n: t.count })}</a
            >
          </li>`,
      )}
    </ul>
  </nav>`;
}

function emptyWords(filter: ReadingListFilter, locale: Locale): string {
  if (filter.tag === null && filter.state === 'unread') return locale.t('web.readingList.noneUnread');
  return locale.t('web.readingList.none', {
    tagged: filter.tag === null ? 'no' : 'yes',
    state: filter.state,
    tag: filter.tag ?? '',
  });
}

function pager(
  filter: ReadingListFilter,
  start: number,
  end: number,
  total: number,
  locale: Locale,
): SafeHtml | null {
  if (total <= READING_PAGE_SIZE && start === 0) return null;
  const newer = listHref(filter, Math.max(0, start - READING_PAGE_SIZE));
  return html`<nav class="pager" aria-label="${locale.t('web.readingList.pagesLabel')}">
    <span
      >${locale.t('web.readingList.shown', { first: end === start ? 0 : start + 1, last: end, total })}</span
    >
    ${start > 0 ? html`<a href="${newer}">${locale.t('web.readingList.newer')}</a>` : null}
    ${end < total ? html`<a href="${listHref(filter, end)}">${locale.t('web.readingList.older')}</a>` : null}
  </nav>`;
}

function itemRow(item: ReadingListed, v: ReadingListPageView): SafeHtml {
  const { filter } = v;
  const { locale } = v.viewer;
  const tags = item.tags.split('\n').filter((t) => t !== '');
  const archived = item.state === 'archived';
  const action = archived ? 'unarchive' : 'archive';
  return html`<li>
    <div class="main">
      <a class="title" href="${safeHref(item.url)}" rel="noopener noreferrer" dir="auto">${item.title}</a>
      <div class="meta">
        ${new SafeHtml(
          locale.html(
            'web.readingList.meta',
            {
              domain: domainOf(item.url),
              when: timeElement(item.saved_at, v.timezone, ago(item.saved_at, v.now, locale), locale).value,
              state: item.state,
            },
            ['when'],
          ),
        )}
        ${tags.map((t) => html` · <a href="${listHref({ ...filter, tag: t })}">#${t}</a>`)}
      </div>
    </div>
    <form class="actions inline" method="post" action="/reading-list/${item.id}/${action}">
      ${csrfField(v.viewer)}
      ${filter.state === 'unread' ? null : html`<input type="hidden" name="state" value="${filter.state}" />`}
      ${filter.tag === null ? null : html`<input type="hidden" name="tag" value="${filter.tag}" />`}
      ${v.start > 0 ? html`<input type="hidden" name="start" value="${v.start}" />` : null}
      <button
        class="quiet"
        type="submit"
        aria-label="${locale.t(archived ? 'web.readingList.unarchiveLabel' : 'web.readingList.archiveLabel', {
          title: item.title,
        })}"
      >
        ${locale.t(archived ? 'web.readingList.unarchive' : 'web.readingList.archive')}
      </button>
    </form>
  </li>`;
}

function uploadForm(viewer: Viewer): SafeHtml {
  const { locale } = viewer;
  return html`<h2 id="import-heading">${locale.t('web.readingList.import.heading')}</h2>
    <form
      class="stack"
      method="post"
      action="/reading-list/import"
      enctype="multipart/form-data"
      aria-labelledby="import-heading"
    >
      ${csrfField(viewer)}
      <div>
        <label for="export-file">${locale.t('web.readingList.import.file')}</label>
        <input
          id="export-file"
          name="export"
          type="file"
          required
          accept=".csv,.html,.htm,.json,.zip"
          aria-describedby="export-hint"
        />
        <p class="hint" id="export-hint">
          ${locale.t('web.readingList.import.hint', {
            mb: IMPORT_LIMITS.fileBytes / 1024 / 1024,
            rows: IMPORT_LIMITS.rows,
          })}
        </p>
      </div>
      <div>
        <label for="export-format">${locale.t('web.readingList.import.format')}</label>
        <select id="export-format" name="format">
          <option value="auto" selected>${locale.t('web.readingList.import.auto')}</option>
          ${IMPORT_FORMATS.map((f) => html`<option value="${f}">${locale.t(FORMAT_NAMES[f])}</option>`)}
        </select>
      </div>
      <div><button type="submit">${locale.t('web.readingList.import.button')}</button></div>
    </form>`;
}
