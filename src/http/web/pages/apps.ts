import type { FastifyInstance } from 'fastify';
import {
  type ApiClientInfo,
  CLIENT_NAME_MAX,
  createApiClient,
  listApiClients,
  revokeApiClient,
} from '../../../accounts/apiClients.js';
import { showAccount } from '../../../accounts/service.js';
import type { Session as WebSession } from '../../../accounts/sessions.js';
import { isTidingsError } from '../../../errors.js';
import { foldWhitespace } from '../../../lib/text.js';
import {
  type WebDeps,
  WebError,
  checkCsrf,
  field,
  formOf,
  idParam,
  queryParam,
  requireSession,
  sendPage,
  seeOther,
  viewerOf,
} from '../context.js';
import { type SafeHtml, html } from '../html.js';
import { type Viewer, csrfField, page } from '../layout.js';
import { ago, timeElement } from '../time.js';

/*
 * Settings → Apps (issue 35, point 1): the apps let in to the wallabag-compatible API (KOReader, the
 * wallabag apps, Wallabagger), made here with the values to type into them (the secret shown once) and
 * revoked here, which ends their tokens at once. docs/apps.md says where each value goes.
 */

interface AppsView {
  viewer: Viewer;
  clients: ApiClientInfo[];
  zone: string;
  now: Date;
  baseUrl: string;
  /** What the apps call the username: the account's e-mail address, else its name. */
  username: string;
  notice?: string | undefined;
  error?: string | undefined;
  created?: { client: ApiClientInfo; secret: string } | undefined;
}

const BAD_NAME = `Give the app a name of 1 to ${CLIENT_NAME_MAX} characters, such as “Kobo” or “phone”.`;

export function registerApps(scope: FastifyInstance, deps: WebDeps): void {
  async function view(session: WebSession, extra: Partial<AppsView>): Promise<SafeHtml> {
    const clients = await listApiClients(deps.store, session.accountId);
    const account = await showAccount(deps.store, session.accountId);
    const viewer = viewerOf(session);
    if (viewer === null || account === null) throw new WebError(404, 'This account no longer exists.');
    return appsPage({
      viewer,
      clients,
      zone: account.timezone,
      now: deps.now(),
      baseUrl: deps.config.baseUrl,
      username: account.email ?? account.name,
      ...extra,
    });
  }

  scope.get('/settings/apps', async (request, reply) => {
    const session = requireSession(request);
    const notice =
      queryParam(request, 'notice') === 'revoked'
        ? 'App revoked: it is signed out, and its client ID and secret no longer work.'
        : undefined;
    return sendPage(reply, 200, await view(session, { notice }));
  });

  scope.post('/settings/apps', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const name = foldWhitespace(field(formOf(request), 'name') ?? '');
    if (name === '' || name.length > CLIENT_NAME_MAX) {
      return sendPage(reply, 400, await view(session, { error: BAD_NAME }));
    }
    const made = await createApiClient(deps.store, session.accountId, name, deps.now());
    if (made === null) throw new WebError(404, 'This account no longer exists.');
    // The secret is in this answer only (never in a URL, never stored): the page is not cached.
    return sendPage(
      reply,
      200,
      await view(session, { created: { client: made.client, secret: made.clientSecret } }),
    );
  });

  scope.post('/settings/apps/:id/revoke', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    try {
      if (id === null) throw new WebError(404, 'You have no such app.');
      await revokeApiClient(deps.store, session.accountId, id);
    } catch (err) {
      if (isTidingsError(err, 'not_found'))
        throw new WebError(404, 'You have no such app (it may already be revoked).');
      throw err;
    }
    return seeOther(reply, '/settings/apps?notice=revoked');
  });
}

function appsPage(v: AppsView): SafeHtml {
  return page({
    title: 'Apps',
    locale: v.viewer.locale,
    viewer: v.viewer,
    current: 'settings',
    body: html`<h1>Apps</h1>
      ${v.notice === undefined ? null : html`<p class="notice" role="status">${v.notice}</p>`}
      ${v.error === undefined ? null : html`<p class="error" role="alert">${v.error}</p>`}
      ${v.created === undefined ? null : createdPanel(v, v.created)}
      <p>
        Apps that speak wallabag’s API read and save your reading list: KOReader on an e-reader, the wallabag
        apps on a phone, the Wallabagger browser extension. Give each its own entry here: then you can revoke
        one without touching the others. They sign in with your password; set one under
        <a href="/settings/sign-in">Sign-in settings</a>.
      </p>
      <h2>Your apps</h2>
      ${
        v.clients.length === 0
          ? html`<p>None yet.</p>`
          : html`<ul class="items">
              ${v.clients.map((c) => clientRow(c, v))}
            </ul>`
      }
      <h2 id="create-heading">Add an app</h2>
      <form class="row" method="post" action="/settings/apps" aria-labelledby="create-heading">
        ${csrfField(v.viewer)}
        <div class="grow">
          <label for="new-app-name">Name</label>
          <input
            id="new-app-name"
            name="name"
            type="text"
            required
            maxlength="${CLIENT_NAME_MAX}"
            placeholder="Kobo"
          />
        </div>
        <button type="submit">Add app</button>
      </form>`,
  });
}

function clientRow(c: ApiClientInfo, v: AppsView): SafeHtml {
  return html`<li>
    <div class="main">
      <span class="title">${c.name}</span>
      <div class="meta">
        <span class="mono">${c.client_id}</span> · added
        ${timeElement(c.created_at, v.zone, ago(c.created_at, v.now))} ·
        ${
          c.last_used_at === null
            ? 'never signed in'
            : html`last signed in ${timeElement(c.last_used_at, v.zone, ago(c.last_used_at, v.now))}`
        }
      </div>
    </div>
    <div class="actions">
      <form method="post" action="/settings/apps/${c.id}/revoke">
        ${csrfField(v.viewer)}
        <button class="danger" type="submit">
          Revoke<span class="visually-hidden"> app “${c.name}”</span>
        </button>
      </form>
    </div>
  </li>`;
}

function createdPanel(v: AppsView, created: { client: ApiClientInfo; secret: string }): SafeHtml {
  const value = (id: string, label: string, text: string): SafeHtml =>
    html`<div>
      <label for="${id}">${label}</label>
      <input id="${id}" type="text" readonly value="${text}" spellcheck="false" />
    </div>`;
  return html`<section class="panel" aria-labelledby="created-heading">
    <h2 id="created-heading">Type these into “${created.client.name}”</h2>
    <p>
      <strong>Copy the secret now: it is shown only this once.</strong> Tidings keeps only a fingerprint of
      it.
    </p>
    <div class="stack">
      ${value('app-server', 'Server URL', v.baseUrl)}
      ${value('app-client-id', 'Client ID', created.client.client_id)}
      ${value('app-client-secret', 'Client secret', created.secret)}
      ${value('app-username', 'Username', v.username)}
    </div>
    <p class="hint">
      Password: your Tidings password. In KOReader: Tools → Wallabag → Settings → Configure Wallabag server,
      the five fields in this order.
    </p>
  </section>`;
}
