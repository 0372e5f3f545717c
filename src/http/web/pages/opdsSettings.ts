import type { FastifyInstance } from 'fastify';
import { newOpdsLink, opdsLinkMadeAt, revokeOpdsLink } from '../../../accounts/opds.js';
import { showAccount } from '../../../accounts/service.js';
import type { Session as WebSession } from '../../../accounts/sessions.js';
import {
  type WebDeps,
  WebError,
  checkCsrf,
  queryParam,
  requireSession,
  sendPage,
  seeOther,
  viewerOf,
} from '../context.js';
import { type SafeHtml, html } from '../html.js';
import { csrfField, page } from '../layout.js';
import { ago, timeElement } from '../time.js';

/*
 * Settings → "E-reader catalogue" (`/settings/e-reader-catalogue`): the OPDS catalogue's address, how to
 * sign in to it, and its private link (accounts/opds.ts): made here (shown in that answer only, as a new
 * key is; only its hash is kept) or revoked. docs/apps.md#opds-catalogue.
 */

const PATH = '/settings/e-reader-catalogue';

const NOTICES: Record<string, string> = {
  revoked: 'The private link is revoked: the catalogue now opens only with your password.',
};

export function registerOpdsSettings(scope: FastifyInstance, deps: WebDeps): void {
  async function view(session: WebSession, extra: { notice?: string; link?: string }): Promise<SafeHtml> {
    const viewer = viewerOf(session);
    const account = await showAccount(deps.store, session.accountId);
    if (viewer === null || account === null) throw new WebError(404, 'This account no longer exists.');
    const madeAt = await opdsLinkMadeAt(deps.store, session.accountId);
    const base = deps.config.baseUrl.replace(/\/+$/, '');
    const now = deps.now();
    return page({
      title: 'E-reader catalogue',
      locale: viewer.locale,
      viewer,
      body: html`<h1>E-reader catalogue</h1>
        ${extra.notice === undefined ? null : html`<p class="notice" role="status">${extra.notice}</p>`}
        <p>
          E-reader apps that read OPDS catalogues (KOReader, Foliate, Moon+ Reader, Thorium, PocketBook) can
          list your digests and your unread reading list here and download each as an EPUB.
        </p>
        <p>Catalogue address: <code class="mono">${base}/opds</code></p>
        <p>
          Sign in with your email address or account name and your password (<a href="/settings/sign-in"
            >Sign-in settings</a
          >). Wrong passwords count as they do on the sign-in page.
        </p>
        <h2>Private link</h2>
        <p>
          For an app that cannot send a password: a link that opens the catalogue on its own. Anyone who has
          it can read your digests and reading list, so keep it to your devices.
        </p>
        ${
          extra.link === undefined
            ? null
            : html`<div class="notice" role="status">
                <p>Your catalogue link (shown this once; Tidings keeps only a fingerprint of it):</p>
                <p>
                  <input
                    type="text"
                    readonly
                    class="mono"
                    value="${extra.link}"
                    aria-label="Catalogue link"
                  />
                </p>
              </div>`
        }
        <p>
          ${
            madeAt === null
              ? 'You have no private link.'
              : html`You made a private link ${timeElement(madeAt, account.timezone, ago(madeAt, now))}.`
          }
        </p>
        <form method="post" action="${PATH}/link">
          ${csrfField(viewer)}
          <button type="submit">
            ${madeAt === null ? 'Make a private link' : 'Make a new private link'}
          </button>
          ${madeAt === null ? null : html`<span class="hint">The link you have now stops working.</span>`}
        </form>
        ${
          madeAt === null
            ? null
            : html`<form method="post" action="${PATH}/revoke">
                ${csrfField(viewer)}
                <button type="submit">Revoke the private link</button>
              </form>`
        }`,
    });
  }

  scope.get(PATH, async (request, reply) => {
    const session = requireSession(request);
    const notice = NOTICES[queryParam(request, 'notice') ?? ''];
    return sendPage(reply, 200, await view(session, notice === undefined ? {} : { notice }));
  });

  scope.post(`${PATH}/link`, async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const link = await newOpdsLink(deps.store, session.accountId, deps.config.baseUrl, deps.now());
    if (link === null) throw new WebError(404, 'This account no longer exists.');
    // Shown in this answer only (never in a URL, never stored as it is).
    return sendPage(reply, 200, await view(session, { link }));
  });

  scope.post(`${PATH}/revoke`, async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    await revokeOpdsLink(deps.store, session.accountId);
    return seeOther(reply, `${PATH}?notice=revoked`);
  });
}
