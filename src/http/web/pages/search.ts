import type { FastifyInstance } from 'fastify';
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
import { SafeHtml, html, markup, safeHref } from '../html.js';
import type { Locale } from '../../../i18n/locale.js';
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
    if (viewer === null) throw new Error('no viewer for a session');
    const { locale } = viewer;
    if (account === null) throw new WebError(404, locale.t('web.search.accountGone'));
    const q = (queryParam(request, 'q') ?? '').slice(0, SEARCH_QUERY_LIMIT * 4);
    const start = startParam(queryParam(request, 'start'));
    let status = 200;
    let body: SafeHtml;
    if (isBlankSearch(q)) {
      body = html`<p>${locale.t('web.search.prompt')}</p>`;
    } else {
      try {
        const found = await searchAccount(deps.store, session.accountId, q, {
          offset: start,
          limit: SEARCH_PAGE_SIZE,
          baseUrl: deps.config.baseUrl,
        });
        body = results(locale, q, found, account.timezone, deps.now());
      } catch (err) {
        const refusal = webRefusal(err, deps.config, locale);
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
        title: isBlankSearch(q) ? locale.t('web.search.title') : locale.t('web.search.titleOf', { q }),
        locale: viewer.locale,
        viewer,
        body: html`<h1>${locale.t('web.search.title')}</h1>
          ${searchForm(locale, q, invalid)} ${body} ${syntaxHelp(locale)}`,
      }),
    );
  });
}

/** The search box: a GET form to /search, labelled, its query kept. */
export function searchForm(locale: Locale, q = '', invalid = false): SafeHtml {
  return html`<form class="row search" method="get" action="/search" role="search">
    <div class="grow">
      <label for="search-q">${locale.t('web.search.label')}</label>
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
    <button type="submit">${locale.t('web.search.submit')}</button>
  </form>`;
}

function results(locale: Locale, q: string, found: SearchResults, zone: string, now: Date): SafeHtml {
  const { total, offset, hits } = found;
  if (total === 0) {
    return html`<p role="status">${locale.t('web.search.none', { q })}</p>`;
  }
  const end = offset + hits.length;
  const link = (start: number) => `/search?q=${encodeURIComponent(q)}${start > 0 ? `&start=${start}` : ''}`;
  return html`<p role="status">
      ${locale.t('web.search.found', {
        capped: found.capped ? 'yes' : 'no',
        more: total - 1,
        total,
        shown: hits.length === 0 ? 'no' : 'yes',
        first: offset + 1,
        last: end,
      })}
    </p>
    <ol class="items">
      ${hits.map((h) => hit(locale, h, zone, now))}
    </ol>
    ${
      total > SEARCH_PAGE_SIZE
        ? html`<nav class="pager" aria-label="${locale.t('web.search.pagesLabel')}">
            <span
              >${locale.t('web.search.shown', {
                first: offset + 1,
                last: end,
                capped: found.capped ? 'yes' : 'no',
                total,
              })}</span
            >
            ${offset > 0 ? html`<a href="${link(Math.max(0, offset - SEARCH_PAGE_SIZE))}">${locale.t('web.search.previous')}</a>` : null}
            ${end < total ? html`<a href="${link(end)}">${locale.t('web.search.more')}</a>` : null}
          </nav>`
        : null
    }`;
}

function hit(locale: Locale, h: SearchHit, zone: string, now: Date): SafeHtml {
  // A digest of an unknown day: "In the digest of an earlier day", those words the link's.
  const earlier = h.kind === 'digest' && h.digestDate === null;
  const day = h.kind === 'digest' && h.digestDate !== null ? locale.day(h.digestDate, true) : '';
  const when =
    h.kind === 'digest'
      ? h.digestUrl === null
        ? html`${day}`.value
        : html`<a href="${h.digestUrl}">${day}</a>`.value
      : timeElement(h.at, zone, ago(h.at, now, locale), locale).value;
  const link = earlier && h.digestUrl !== null ? markup.link(h.digestUrl) : { linkStart: '', linkEnd: '' };
  const where = new SafeHtml(
    locale.html('web.search.where', { kind: earlier ? 'earlier' : h.kind, when, ...link }, [
      'when',
      ...markup.linkNames,
    ]),
  );
  return html`<li>
    <div class="main">
      <a class="title" href="${safeHref(h.url)}">${marked(h.title)}</a>
      <div class="meta">${h.site} · ${where}</div>
      ${h.snippet.length === 0 ? null : html`<p class="excerpt">${marked(h.snippet)}</p>`}
    </div>
  </li>`;
}

/** Segments as HTML: every text escaped, the matches in <mark>. */
const marked = (segments: readonly Segment[]): SafeHtml[] =>
  segments.map((s) => (s.mark ? html`<mark>${s.text}</mark>` : html`${s.text}`));

const syntaxHelp = (locale: Locale): SafeHtml =>
  html`<details class="help">
    <summary>${locale.t('web.search.help.summary')}</summary>
    <p>
      ${new SafeHtml(
        locale.html(
          'web.search.help.text',
          {
            phrase: html`<code>"${locale.t('web.search.help.phrase')}"</code>`.value,
            exclude: html`<code>-${locale.t('web.search.help.word')}</code>`.value,
            either: html`<code>${locale.t('web.search.help.either')}</code>`.value,
          },
          ['phrase', 'exclude', 'either'],
        ),
      )}
    </p>
  </details>`;
