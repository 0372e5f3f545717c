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
  localeFor,
} from '../context.js';
import { ENGLISH } from '../../../i18n/locale.js';
import { type LabelKey, localeAgoElement } from '../localeTime.js';
import { SafeHtml, html } from '../html.js';
import { csrfField, page } from '../layout.js';

/*
 * Settings → "E-reader catalogue" (`/settings/e-reader-catalogue`): the OPDS catalogue's address, how to
 * sign in to it, and its private link (accounts/opds.ts): made here (shown in that answer only, as a new
 * key is; only its hash is kept) or revoked. docs/apps.md#opds-catalogue.
 */

const PATH = '/settings/e-reader-catalogue';

const NOTICES: Record<string, LabelKey> = {
  revoked: 'web.opds.notice.revoked',
};

export function registerOpdsSettings(scope: FastifyInstance, deps: WebDeps): void {
  async function view(session: WebSession, extra: { notice?: string; link?: string }): Promise<SafeHtml> {
    const viewer = viewerOf(session);
    const account = await showAccount(deps.store, session.accountId);
    if (viewer === null || account === null) {
      throw new WebError(404, (viewer?.locale ?? ENGLISH).t('web.settings.gone'));
    }
    const { locale } = viewer;
    const madeAt = await opdsLinkMadeAt(deps.store, session.accountId);
    const base = deps.config.baseUrl.replace(/\/+$/, '');
    const now = deps.now();
    return page({
      title: locale.t('web.settings.opdsLinkLabel'),
      locale: viewer.locale,
      viewer,
      body: html`<h1>${locale.t('web.settings.opdsLinkLabel')}</h1>
        ${extra.notice === undefined ? null : html`<p class="notice" role="status">${extra.notice}</p>`}
        <p>${locale.t('web.opds.intro')}</p>
        <p>
          ${new SafeHtml(
            locale.html('web.opds.address', { address: html`<code class="mono">${base}/opds</code>`.value }, [
              'address',
            ]),
          )}
        </p>
        <p>
          ${new SafeHtml(
            locale.html(
              'web.opds.signIn',
              {
                link: html`<a href="/settings/sign-in">${locale.t('web.settings.signInLinkLabel')}</a>`.value,
              },
              ['link'],
            ),
          )}
        </p>
        <h2>${locale.t('web.opds.privateLink')}</h2>
        <p>${locale.t('web.opds.privateLinkExplain')}</p>
        ${
          extra.link === undefined
            ? null
            : html`<div class="notice" role="status">
                <p>${locale.t('web.opds.yourLink')}</p>
                <p>
                  <input
                    type="text"
                    readonly
                    class="mono"
                    value="${extra.link}"
                    aria-label="${locale.t('web.opds.linkLabel')}"
                  />
                </p>
              </div>`
        }
        <p>
          ${
            madeAt === null
              ? locale.t('web.opds.noLink')
              : new SafeHtml(
                  locale.html(
                    'web.opds.madeAt',
                    { when: localeAgoElement(locale, madeAt, account.timezone, now).value },
                    ['when'],
                  ),
                )
          }
        </p>
        <form method="post" action="${PATH}/link">
          ${csrfField(viewer)}
          <button type="submit">${locale.t(madeAt === null ? 'web.opds.make' : 'web.opds.makeNew')}</button>
          ${madeAt === null ? null : html`<span class="hint">${locale.t('web.opds.oldStops')}</span>`}
        </form>
        ${
          madeAt === null
            ? null
            : html`<form method="post" action="${PATH}/revoke">
                ${csrfField(viewer)}
                <button type="submit">${locale.t('web.opds.revoke')}</button>
              </form>`
        }`,
    });
  }

  scope.get(PATH, async (request, reply) => {
    const session = requireSession(request);
    const notice = NOTICES[queryParam(request, 'notice') ?? ''];
    const extra = notice === undefined ? {} : { notice: localeFor(request).t(notice) };
    return sendPage(reply, 200, await view(session, extra));
  });

  scope.post(`${PATH}/link`, async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const link = await newOpdsLink(deps.store, session.accountId, deps.config.baseUrl, deps.now());
    if (link === null) throw new WebError(404, localeFor(request).t('web.settings.gone'));
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
