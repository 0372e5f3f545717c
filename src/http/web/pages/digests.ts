import type { FastifyInstance } from 'fastify';
import { DateTime } from 'luxon';
import { type ArchivedDigest, digestArchive } from '../../../accounts/digests.js';
import type { Digest } from '../../../store/digests.js';
import { type WebDeps, WebError, queryParam, requireSession, sendPage, viewerOf } from '../context.js';
import { type SafeHtml, html } from '../html.js';
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
    if (archive === null || viewer === null) throw new WebError(404, 'This account no longer exists.');
    const { account, total, digests } = archive;
    const now = deps.now();
    const row = ({ digest: d, webUrl: href }: ArchivedDigest): SafeHtml => {
      const day = DateTime.fromISO(d.local_date).toFormat('cccc d LLLL yyyy');
      return html`<li>
        <div class="main">
          <a class="title" href="${href}">${day}</a>
          <div class="meta">
            ${d.item_count}
            link${d.item_count === 1 ? '' : 's'}${
              d.remaining > 0 ? ` (${d.remaining} stayed queued for the next)` : ''
            }
            · built ${timeElement(d.created_at, account.timezone, ago(d.created_at, now))}
          </div>
          <div class="meta${d.delivery === 'failed' ? ' error-text' : ''}">
            ${delivery(d, account.timezone, now)}
          </div>
        </div>
      </li>`;
    };
    const end = start + digests.length;
    return sendPage(
      reply,
      200,
      page({
        title: 'Digests',
        locale: viewer.locale,
        viewer,
        current: 'digests',
        body: html`<h1>Digests</h1>
          ${searchForm()}
          ${
            total === 0
              ? html`<p>
                  No digest yet. The first is built at your send time (see <a href="/settings">Settings</a>),
                  or now with “Send me a digest now”.
                </p>`
              : html`<p>
                    ${total.toLocaleString('en')} digest${total === 1 ? '' : 's'}, newest first. Each opens as
                    it looks in the email.
                  </p>
                  <ul class="items">
                    ${digests.map(row)}
                  </ul>`
          }
          ${
            total > DIGESTS_PAGE_SIZE
              ? html`<nav class="pager" aria-label="Digest pages">
                  <span>${start + 1}–${end} of ${total.toLocaleString('en')}</span>
                  ${start > 0 ? html`<a href="/digests?start=${Math.max(0, start - DIGESTS_PAGE_SIZE)}">Newer</a>` : null}
                  ${end < total ? html`<a href="/digests?start=${end}">Older</a>` : null}
                </nav>`
              : null
          }`,
      }),
    );
  });
}

/** Where a digest's email stands, in words. */
function delivery(d: Digest, zone: string, now: Date): SafeHtml {
  switch (d.delivery) {
    case 'sent':
      return d.sent_at === null
        ? html`Emailed`
        : html`Emailed ${timeElement(d.sent_at, zone, ago(d.sent_at, now))}`;
    case 'pending':
      return d.last_error === null || d.next_attempt_at === null
        ? html`To be emailed shortly`
        : html`Not emailed yet (${d.last_error}); trying again
          ${timeElement(d.next_attempt_at, zone, fromNow(d.next_attempt_at, now))}`;
    case 'sending':
      return html`Being emailed`;
    case 'failed':
      return html`The email could not be sent${d.last_error === null ? '' : `: ${d.last_error}`}`;
    case 'not_emailed':
      return html`Not emailed (email was off, or there was no address)`;
    case 'no_smtp':
      return html`Not emailed (no mail server was configured)`;
  }
}
