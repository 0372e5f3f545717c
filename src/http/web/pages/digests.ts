import type { FastifyInstance } from 'fastify';
import { type ArchivedDigest, digestArchive } from '../../../accounts/digests.js';
import type { Digest } from '../../../store/digests.js';
import { type WebDeps, WebError, queryParam, requireSession, sendPage, viewerOf } from '../context.js';
import { SafeHtml, html, markup } from '../html.js';
import type { Locale } from '../../../i18n/locale.js';
import { page } from '../layout.js';
import { ago, fromNow, timeElement } from '../time.js';
import { searchForm } from './search.js';

export const DIGESTS_PAGE_SIZE = 30;

/**
 * The archive of the account's digests, newest first. Each is read at its own page, /digests/ID?token=…
 * (the email's markup; served by ../digests.ts), the link its email carries too.
 */
export function registerDigests(scope: FastifyInstance, deps: WebDeps): void {
  scope.get('/digests', async (request, reply) => {
    const session = requireSession(request);
    const raw = queryParam(request, 'start');
    const start = raw !== undefined && /^\d{1,6}$/.test(raw) ? Number(raw) : 0;
    const archive = await digestArchive(deps.store, session.accountId, {
      offset: start,
      limit: DIGESTS_PAGE_SIZE,
      baseUrl: deps.config.baseUrl,
    });
    const viewer = viewerOf(session);
    if (viewer === null) throw new Error('no viewer for a session');
    const { locale } = viewer;
    if (archive === null) throw new WebError(404, locale.t('web.digests.accountGone'));
    const { account, total, digests } = archive;
    const now = deps.now();
    const row = ({ digest: d, webUrl: href }: ArchivedDigest): SafeHtml => {
      const day = locale.day(d.local_date, true);
      const built = timeElement(d.created_at, account.timezone, ago(d.created_at, now, locale), locale);
      return html`<li>
        <div class="main">
          <a class="title" href="${href}">${day}</a>
          <div class="meta">
            ${new SafeHtml(
              locale.html(
                'web.digests.row',
                { links: d.item_count, remaining: d.remaining, built: built.value },
                ['built'],
              ),
            )}
          </div>
          <div class="meta${d.delivery === 'failed' ? ' error-text' : ''}">
            ${delivery(locale, d, account.timezone, now)}
          </div>
        </div>
      </li>`;
    };
    const end = start + digests.length;
    return sendPage(
      reply,
      200,
      page({
        title: locale.t('web.digests.title'),
        locale: viewer.locale,
        viewer,
        current: 'digests',
        body: html`<h1>${locale.t('web.digests.title')}</h1>
          ${searchForm(locale)}
          ${
            total === 0
              ? html`<p>
                  ${new SafeHtml(locale.html('web.digests.none', markup.link('/settings'), markup.linkNames))}
                </p>`
              : html`<p>${locale.t('web.digests.count', { total })}</p>
                  <ul class="items">
                    ${digests.map(row)}
                  </ul>`
          }
          ${
            total > DIGESTS_PAGE_SIZE
              ? html`<nav class="pager" aria-label="${locale.t('web.digests.pagesLabel')}">
                  <span>${locale.t('web.digests.shown', { first: start + 1, last: end, total })}</span>
                  ${start > 0 ? html`<a href="/digests?start=${Math.max(0, start - DIGESTS_PAGE_SIZE)}">${locale.t('web.digests.newer')}</a>` : null}
                  ${end < total ? html`<a href="/digests?start=${end}">${locale.t('web.digests.older')}</a>` : null}
                </nav>`
              : null
          }`,
      }),
    );
  });
}

/** Where a digest's email stands, in words. */
function delivery(locale: Locale, d: Digest, zone: string, now: Date): SafeHtml {
  const at = (iso: string, words: string): string => timeElement(iso, zone, words, locale).value;
  switch (d.delivery) {
    case 'sent':
      return d.sent_at === null
        ? html`${locale.t('web.digests.emailed')}`
        : new SafeHtml(
            locale.html('web.digests.emailedAt', { when: at(d.sent_at, ago(d.sent_at, now, locale)) }, [
              'when',
            ]),
          );
    case 'pending':
      return d.last_error === null || d.next_attempt_at === null
        ? html`${locale.t('web.digests.pending')}`
        : new SafeHtml(
            locale.html(
              'web.digests.retrying',
              {
                error: d.last_error,
                when: at(d.next_attempt_at, fromNow(d.next_attempt_at, now, locale)),
              },
              ['when'],
            ),
          );
    case 'sending':
      return html`${locale.t('web.digests.sending')}`;
    case 'failed':
      return d.last_error === null
        ? html`${locale.t('web.digests.failed')}`
        : html`${locale.t('web.digests.failedWith', { error: d.last_error })}`;
    case 'not_emailed':
      return html`${locale.t('web.digests.notEmailed')}`;
    case 'no_smtp':
      return html`${locale.t('web.digests.noSmtp')}`;
  }
}
