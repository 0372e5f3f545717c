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
  requireSession,
  sendPage,
  viewerOf,
} from '../context.js';
import { type SafeHtml, html } from '../html.js';
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
    if (issued === null) throw new WebError(404, 'This account no longer exists.');
    return sendPage(reply, 200, render(session, { apiKey: issued.apiKey, made: true }));
  });

  scope.post('/save', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const key = field(formOf(request), 'key')?.trim() ?? '';
    const auth = key === '' ? null : await authenticateKey(deps.store, key);
    if (auth?.accountId !== session.accountId) {
      const error =
        'That is not one of your active keys. Paste the whole key (it starts with tdg_), or make a new one.';
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
  const made =
    v.made === true && v.apiKey !== undefined
      ? html`<section class="panel" aria-labelledby="made-heading">
          <h2 id="made-heading">A new key for the bookmarklet</h2>
          <p>It is called “${BOOKMARKLET_KEY_NAME}” on the Keys page, and shown only this once:</p>
          <label for="made-key">Key</label>
          <input id="made-key" type="text" readonly value="${v.apiKey}" spellcheck="false" />
        </section>`
      : null;
  return page({
    title: 'Save from anywhere',
    locale: viewer.locale,
    viewer,
    current: 'save',
    body: html`<h1>Save from anywhere</h1>
      <p>
        Links reach your queue from a bookmarklet in your browser, from your phone’s share menu, or from any
        program through the API. Each of these uses one of your keys.
      </p>
      ${v.error === undefined ? null : html`<p class="error" role="alert" id="save-error">${v.error}</p>`}
      ${made}
      ${
        v.apiKey === undefined
          ? html`<h2>Fill in a key</h2>
              <form class="stack" method="post" action="/save/new-key">
                ${csrfField(viewer)}
                <p>Make a new key just for the bookmarklet, so you can revoke it on its own:</p>
                <div><button type="submit">Make a bookmarklet with a new key</button></div>
              </form>
              <form class="stack" method="post" action="/save">
                ${csrfField(viewer)}
                <div>
                  <label for="save-key">Or paste a key you already have</label>
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
                <div><button class="quiet" type="submit">Fill it in</button></div>
              </form>`
          : html`<p class="muted">The instructions below carry your key. <a href="/save">Start again</a>.</p>`
      }
      ${saveInstructions(baseUrl, v.apiKey ?? null)}`,
  });
}
