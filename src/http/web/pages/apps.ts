import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Locale } from '../../../i18n/locale.js';
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
  localeFor,
  queryParam,
  requireSession,
  sendPage,
  seeOther,
  viewerOf,
} from '../context.js';
import { SafeHtml, html } from '../html.js';
import { type Viewer, csrfField, page, unseen } from '../layout.js';
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

const badName = (locale: Locale): string => locale.t('web.apps.badName', { max: CLIENT_NAME_MAX });

export function registerApps(scope: FastifyInstance, deps: WebDeps): void {
  async function view(
    request: FastifyRequest,
    session: WebSession,
    extra: Partial<AppsView>,
  ): Promise<SafeHtml> {
    const clients = await listApiClients(deps.store, session.accountId);
    const account = await showAccount(deps.store, session.accountId);
    const viewer = viewerOf(session);
    if (viewer === null || account === null) {
      throw new WebError(404, localeFor(request).t('web.apps.accountGone'));
    }
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
        ? localeFor(request).t('web.apps.notice.revoked')
        : undefined;
    return sendPage(reply, 200, await view(request, session, { notice }));
  });

  scope.post('/settings/apps', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const name = foldWhitespace(field(formOf(request), 'name') ?? '');
    if (name === '' || name.length > CLIENT_NAME_MAX) {
      return sendPage(reply, 400, await view(request, session, { error: badName(localeFor(request)) }));
    }
    const made = await createApiClient(deps.store, session.accountId, name, deps.now());
    if (made === null) throw new WebError(404, localeFor(request).t('web.apps.accountGone'));
    // The secret is in this answer only (never in a URL, never stored): the page is not cached.
    return sendPage(
      reply,
      200,
      await view(request, session, { created: { client: made.client, secret: made.clientSecret } }),
    );
  });

  scope.post('/settings/apps/:id/revoke', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    try {
      if (id === null) throw new WebError(404, localeFor(request).t('web.apps.noSuchApp'));
      await revokeApiClient(deps.store, session.accountId, id);
    } catch (err) {
      if (isTidingsError(err, 'not_found'))
        throw new WebError(404, localeFor(request).t('web.apps.notActive'));
      throw err;
    }
    return seeOther(reply, '/settings/apps?notice=revoked');
  });
}

function appsPage(v: AppsView): SafeHtml {
  const { locale } = v.viewer;
  const signIn = html`<a href="/settings/sign-in">${locale.t('web.settings.signInLinkLabel')}</a>`.value;
  return page({
    title: locale.t('web.apps.title'),
    locale,
    viewer: v.viewer,
    current: 'settings',
    body: html`<h1>${locale.t('web.apps.title')}</h1>
      ${v.notice === undefined ? null : html`<p class="notice" role="status">${v.notice}</p>`}
      ${v.error === undefined ? null : html`<p class="error" role="alert">${v.error}</p>`}
      ${v.created === undefined ? null : createdPanel(v, v.created)}
      <p>
        ${locale.t('web.apps.intro')}
        ${new SafeHtml(locale.html('web.apps.password', { link: signIn }, ['link']))}
      </p>
      <h2>${locale.t('web.apps.yourApps')}</h2>
      ${
        v.clients.length === 0
          ? html`<p>${locale.t('web.apps.none')}</p>`
          : html`<ul class="items">
              ${v.clients.map((c) => clientRow(c, v))}
            </ul>`
      }
      <h2 id="create-heading">${locale.t('web.apps.addHeading')}</h2>
      <form class="row" method="post" action="/settings/apps" aria-labelledby="create-heading">
        ${csrfField(v.viewer)}
        <div class="grow">
          <label for="new-app-name">${locale.t('web.apps.name')}</label>
          <input
            id="new-app-name"
            name="name"
            type="text"
            required
            maxlength="${CLIENT_NAME_MAX}"
            placeholder="${locale.t('web.apps.namePlaceholder')}"
          />
        </div>
        <button type="submit">${locale.t('web.apps.addButton')}</button>
      </form>`,
  });
}

/** "added 2 days ago": a message whose `when` is a <time> element, in the reader's language. */
function when(
  locale: Locale,
  key: 'web.apps.addedAt' | 'web.apps.lastSignedIn',
  iso: string,
  v: AppsView,
): SafeHtml {
  const at = timeElement(iso, v.zone, ago(iso, v.now, locale), locale).value;
  return new SafeHtml(locale.html(key, { when: at }, ['when']));
}

function clientRow(c: ApiClientInfo, v: AppsView): SafeHtml {
  const { locale } = v.viewer;
  return html`<li>
    <div class="main">
      <span class="title">${c.name}</span>
      <div class="meta">
        <span class="mono">${c.client_id}</span> · ${when(locale, 'web.apps.addedAt', c.created_at, v)} ·
        ${
          c.last_used_at === null
            ? locale.t('web.apps.neverSignedIn')
            : when(locale, 'web.apps.lastSignedIn', c.last_used_at, v)
        }
      </div>
    </div>
    <div class="actions">
      <form method="post" action="/settings/apps/${c.id}/revoke">
        ${csrfField(v.viewer)}
        <button class="danger" type="submit">
          ${locale.t('web.apps.revoke')}${unseen(locale.t('web.apps.revokeWhich', { name: c.name }))}
        </button>
      </form>
    </div>
  </li>`;
}

function createdPanel(v: AppsView, created: { client: ApiClientInfo; secret: string }): SafeHtml {
  const { locale } = v.viewer;
  const value = (id: string, label: string, text: string): SafeHtml =>
    html`<div>
      <label for="${id}">${label}</label>
      <input id="${id}" type="text" readonly value="${text}" spellcheck="false" />
    </div>`;
  return html`<section class="panel" aria-labelledby="created-heading">
    <h2 id="created-heading">${locale.t('web.apps.createdHeading', { name: created.client.name })}</h2>
    <p><strong>${locale.t('web.apps.copyNow')}</strong> ${locale.t('web.apps.fingerprint')}</p>
    <div class="stack">
      ${value('app-server', locale.t('web.apps.serverUrl'), v.baseUrl)}
      ${value('app-client-id', locale.t('web.apps.clientId'), created.client.client_id)}
      ${value('app-client-secret', locale.t('web.apps.clientSecret'), created.secret)}
      ${value('app-username', locale.t('web.apps.username'), v.username)}
    </div>
    <p class="hint">${locale.t('web.apps.passwordHint')} ${locale.t('web.apps.koreader')}</p>
  </section>`;
}
