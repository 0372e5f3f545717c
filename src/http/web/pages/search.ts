import type { FastifyInstance } from 'fastify';
import { DateTime } from 'luxon';
import { accountOf } from '../../../accounts/profile.js';
import {
  SEARCH_PAGE_SIZE,
  type SearchHit,
  type SearchResults,
  type Segment,
  searchAccount,
} from '../../../accounts/search.js';
import { SEARCH_QUERY_LIMIT, isBlankSearch } from '../../../lib/searchQuery.js';
import {
  type WebDeps,
  WebError,
  queryParam,
  requireSession,
  sendPage,
  startParam,
  viewerOf,
} from '../context.js';
import { webRefusal } from '../errors.js';
import { type SafeHtml, html, safeHref } from '../html.js';
import { page } from '../layout.js';
import { ago, timeElement } from '../time.js';

/**
 * /search?q=…&start=N: the account's queue, reading list and digests, best first, 20 a page
 * (accounts/search.ts). The box (searchForm) sits on the Queue, Reading list and Digests pages too. A GET form: it changes nothing, so it carries
 * no CSRF token; the query stays in the address, to be bookmarked or shared with oneself.
 */
export function registerSearch(scope: FastifyInstance, deps: WebDeps): void {
  scope.get('/search', async (request, reply) => {
    const session = requireSession(request);
    const viewer = viewerOf(session);
    const account = await accountOf(deps.store, session.accountId);
    if (account === null || viewer === null) throw new WebError(404, 'This account no longer exists.');
    const q = (queryParam(request, 'q') ?? '').slice(0, SEARCH_QUERY_LIMIT * 4);
    const start = startParam(queryParam(request, 'start'));
    let status = 200;
    let body: SafeHtml;
    if (isBlankSearch(q)) {
      body = html`<p>
        Type a word, or several, to find a link in your queue, in your reading list or in any digest you were
        sent.
      </p>`;
    } else {
      try {
        const found = await searchAccount(deps.store, session.accountId, q, {
          offset: start,
          limit: SEARCH_PAGE_SIZE,
          baseUrl: deps.config.baseUrl,
        });
        body = results(q, found, account.timezone, deps.now());
      } catch (err) {
        const refusal = webRefusal(err, deps.config);
        if (refusal === null) throw err;
        status = refusal.status;
        body = html`<p class="error" role="alert" id="search-error">${refusal.message}</p>`;
      }
    }
    const invalid = status !== 200;
    return sendPage(
      reply,
      status,
      page({
        title: isBlankSearch(q) ? 'Search' : `Search: ${q}`,
        locale: viewer.locale,
        viewer,
        body: html`<h1>Search</h1>
          ${searchForm(q, invalid)} ${body} ${syntaxHelp()}`,
      }),
    );
  });
}

/** The search box: a GET form to /search, labelled, its query kept. */
export function searchForm(q = '', invalid = false): SafeHtml {
  return html`<form class="row search" method="get" action="/search" role="search">
    <div class="grow">
      <label for="search-q">Search your links</label>
      <input
        id="search-q"
        name="q"
        type="search"
        maxlength="${SEARCH_QUERY_LIMIT}"
        value="${q}"
        enterkeyhint="search"
        ${invalid ? html` aria-invalid="true" aria-describedby="search-error"` : null}
      />
    </div>
    <button type="submit">Search</button>
  </form>`;
}

function results(q: string, found: SearchResults, zone: string, now: Date): SafeHtml {
  const { total, offset, hits } = found;
  if (total === 0) {
    return html`<p role="status">Nothing in your queue, reading list or digests matches “${q}”.</p>`;
  }
  const end = offset + hits.length;
  const link = (start: number) => `/search?q=${encodeURIComponent(q)}${start > 0 ? `&start=${start}` : ''}`;
  const counted = found.capped
    ? `More than ${(total - 1).toLocaleString('en')} links found`
    : `${total.toLocaleString('en')} link${total === 1 ? '' : 's'} found`;
  return html`<p role="status">
      ${counted}${hits.length === 0 ? '' : `, ${offset + 1}–${end} shown`},
      ${found.capped ? 'newest first (add a word to rank them)' : 'best match first'}.
    </p>
    <ol class="items">
      ${hits.map((h) => hit(h, zone, now))}
    </ol>
    ${
      total > SEARCH_PAGE_SIZE
        ? html`<nav class="pager" aria-label="Search result pages">
            <span>${offset + 1}–${end} of ${found.capped ? 'many' : total.toLocaleString('en')}</span>
            ${offset > 0 ? html`<a href="${link(Math.max(0, offset - SEARCH_PAGE_SIZE))}">Previous results</a>` : null}
            ${end < total ? html`<a href="${link(end)}">More results</a>` : null}
          </nav>`
        : null
    }`;
}

function hit(h: SearchHit, zone: string, now: Date): SafeHtml {
  const where =
    h.kind === 'queue'
      ? html`Queued ${timeElement(h.at, zone, ago(h.at, now))}`
      : h.kind === 'reading'
        ? html`From your reading list, saved ${timeElement(h.at, zone, ago(h.at, now))}`
        : html`In the digest of
          ${
            h.digestUrl === null
              ? dayOf(h.digestDate)
              : html`<a href="${h.digestUrl}">${dayOf(h.digestDate)}</a>`
          }`;
  return html`<li>
    <div class="main">
      <a class="title" href="${safeHref(h.url)}">${marked(h.title)}</a>
      <div class="meta">${h.site} · ${where}</div>
      ${h.snippet.length === 0 ? null : html`<p class="excerpt">${marked(h.snippet)}</p>`}
    </div>
  </li>`;
}

const dayOf = (date: string | null): string =>
  date === null ? 'an earlier day' : DateTime.fromISO(date).toFormat('cccc d LLLL yyyy');

/** Segments as HTML: every text escaped, the matches in <mark>. */
const marked = (segments: readonly Segment[]): SafeHtml[] =>
  segments.map((s) => (s.mark ? html`<mark>${s.text}</mark>` : html`${s.text}`));

const syntaxHelp = (): SafeHtml =>
  html`<details class="help">
    <summary>How to search</summary>
    <p>
      Every word must appear (in the title, the site, the address, the summary or the page’s text).
      <code>"two words"</code> finds them together, <code>-word</code> leaves out links with that word,
      <code>tides OR moon</code> finds either. Chinese, Japanese and Thai are found as written, anywhere in
      the text.
    </p>
  </details>`;
