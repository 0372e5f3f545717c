import type { FastifyInstance } from 'fastify';
import { authenticateKey } from '../../../accounts/authorize.js';
import { issueKey } from '../../../accounts/apiKeys.js';
import type { Session as WebSession } from '../../../accounts/sessions.js';
import {
  type WebDeps,
  WebError,
  checkCsrf,
  field,
  formOf,
  localeFor,
  requireSession,
  sendPage,
  viewerOf,
} from '../context.js';
import { SafeHtml, html } from '../html.js';
import { type Viewer, csrfField, page } from '../layout.js';
import { saveInstructions } from '../saveInstructions.js';

export const BOOKMARKLET_KEY_NAME = 'bookmarklet';

/**
 * Save from anywhere: the bookmarklet, curl lines and phone instructions. The bookmarklet needs a key
 * inside it, and keys are never stored in a readable form, so the page fills one in only in the answer to
 * a form: a new key made for it ("Make a bookmarklet"), or one the reader pastes (checked to be a live
 * key of this account). Either way the key is never in a URL, and the page is not cached.
 */
export function registerSave(scope: FastifyInstance, deps: WebDeps): void {
  const render = (session: WebSession, extra: { apiKey?: string; error?: string; made?: boolean }) => {
    const viewer = viewerOf(session);
    if (viewer === null) throw new Error('no viewer for a session');
    return savePage(viewer, deps.config.baseUrl, extra);
  };

  scope.get('/save', (request, reply) => sendPage(reply, 200, render(requireSession(request), {})));

  scope.post('/save/new-key', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const issued = await issueKey(deps.store, session.accountId, BOOKMARKLET_KEY_NAME);
    if (issued === null) throw new WebError(404, localeFor(request).t('web.save.accountGone'));
    return sendPage(reply, 200, render(session, { apiKey: issued.apiKey, made: true }));
  });

  scope.post('/save', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const key = field(formOf(request), 'key')?.trim() ?? '';
    const auth = key === '' ? null : await authenticateKey(deps.store, key);
    if (auth?.accountId !== session.accountId) {
      const error = localeFor(request).t('web.save.notYourKey');
      return sendPage(reply, 400, render(session, { error }));
    }
    return sendPage(reply, 200, render(session, { apiKey: key }));
  });
}

function savePage(
  viewer: Viewer,
  baseUrl: string,
  v: { apiKey?: string; error?: string; made?: boolean },
): SafeHtml {
  const { locale } = viewer;
  const startAgain = html`<a href="/save">${locale.t('web.save.startAgain')}</a>`.value;
  const made =
    v.made === true && v.apiKey !== undefined
      ? html`<section class="panel" aria-labelledby="made-heading">
          <h2 id="made-heading">${locale.t('web.save.madeHeading')}</h2>
          <p>${locale.t('web.save.madeText', { name: BOOKMARKLET_KEY_NAME })}</p>
          <label for="made-key">${locale.t('web.save.keyLabel')}</label>
          <input id="made-key" type="text" readonly value="${v.apiKey}" spellcheck="false" />
        </section>`
      : null;
  return page({
    title: locale.t('web.save.title'),
    locale: viewer.locale,
    viewer,
    current: 'save',
    body: html`<h1>${locale.t('web.save.title')}</h1>
      <p>${locale.t('web.save.intro')}</p>
      ${v.error === undefined ? null : html`<p class="error" role="alert" id="save-error">${v.error}</p>`}
      ${made}
      ${
        v.apiKey === undefined
          ? html`<h2>${locale.t('web.save.fillHeading')}</h2>
              <form class="stack" method="post" action="/save/new-key">
                ${csrfField(viewer)}
                <p>${locale.t('web.save.newKeyText')}</p>
                <div><button type="submit">${locale.t('web.save.newKeyButton')}</button></div>
              </form>
              <form class="stack" method="post" action="/save">
                ${csrfField(viewer)}
                <div>
                  <label for="save-key">${locale.t('web.save.pasteLabel')}</label>
                  <input
                    id="save-key"
                    name="key"
                    type="password"
                    required
                    autocomplete="off"
                    spellcheck="false"
                    autocapitalize="off"
                    ${v.error === undefined ? null : html` aria-invalid="true" aria-describedby="save-error"`}
                  />
                </div>
                <div><button class="quiet" type="submit">${locale.t('web.save.fillButton')}</button></div>
              </form>`
          : html`<p class="muted">
              ${new SafeHtml(locale.html('web.save.carryKey', { link: startAgain }, ['link']))}
            </p>`
      }
      ${saveInstructions(locale, baseUrl, v.apiKey ?? null)}`,
  });
}
