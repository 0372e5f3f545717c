import { foldWhitespace } from '../../../lib/text.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Locale } from '../../../i18n/locale.js';
import { issueKey, listKeys, renameKey, revokeKey } from '../../../accounts/apiKeys.js';
import { digestFeedAddress, rotateDigestFeed } from '../../../accounts/digestToken.js';
import { displayPrefix } from '../../../accounts/keys.js';
import { showAccount } from '../../../accounts/service.js';
import type { ApiKeyInfo } from '../../../store/apiKeys.js';
import type { Session as WebSession } from '../../../accounts/sessions.js';
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
import { saveInstructions } from '../saveInstructions.js';
import { clearCookie, isSecure, sessionCookieName } from '../session.js';
import { ago, timeElement } from '../time.js';

export const KEY_NAME_MAX = 100;

const NOTICES: Record<
  string,
  'web.keys.notice.renamed' | 'web.keys.notice.revoked' | 'web.keys.notice.feedReset'
> = {
  renamed: 'web.keys.notice.renamed',
  revoked: 'web.keys.notice.revoked',
  feed_reset: 'web.keys.notice.feedReset',
};

/**
 * A key name as typed: control characters dropped (PostgreSQL refuses a NUL in text), whitespace folded,
 * trimmed (lib/text.ts foldWhitespace), 1 to 100 characters; null when it is not one.
 */
export function keyName(raw: string | undefined): string | null {
  const name = foldWhitespace(raw ?? '');
  return name === '' || name.length > KEY_NAME_MAX ? null : name;
}

const badName = (locale: Locale): string => locale.t('web.keys.badName', { max: KEY_NAME_MAX });

interface KeysView {
  viewer: Viewer;
  session: WebSession;
  keys: ApiKeyInfo[];
  zone: string;
  now: Date;
  baseUrl: string;
  /** The private Atom URL of the account's digests. */
  feedUrl: string;
  notice?: string | undefined;
  error?: string | undefined;
  created?: { apiKey: string; name: string } | undefined;
}

/** Keys: create (shown once), rename, revoke. */
export function registerKeys(scope: FastifyInstance, deps: WebDeps): void {
  async function view(
    request: FastifyRequest,
    session: WebSession,
    extra: Partial<KeysView>,
  ): Promise<SafeHtml> {
    const keys = await listKeys(deps.store, session.accountId);
    const account = await showAccount(deps.store, session.accountId);
    const feedUrl = await digestFeedAddress(deps.store, session.accountId, deps.config.baseUrl);
    const viewer = viewerOf(session);
    if (viewer === null || account === null || feedUrl === null) {
      throw new WebError(404, localeFor(request).t('web.keys.accountGone'));
    }
    return keysPage({
      viewer,
      session,
      keys,
      zone: account.timezone,
      now: deps.now(),
      baseUrl: deps.config.baseUrl,
      feedUrl,
      ...extra,
    });
  }

  scope.get('/keys', async (request, reply) => {
    const session = requireSession(request);
    const key = NOTICES[queryParam(request, 'notice') ?? ''];
    const notice = key === undefined ? undefined : localeFor(request).t(key);
    return sendPage(reply, 200, await view(request, session, { notice }));
  });

  scope.post('/keys', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const name = keyName(field(formOf(request), 'name'));
    if (name === null)
      return sendPage(reply, 400, await view(request, session, { error: badName(localeFor(request)) }));
    const issued = await issueKey(deps.store, session.accountId, name);
    if (issued === null) throw new WebError(404, localeFor(request).t('web.keys.accountGone'));
    // Shown in this answer only (never in a URL, never stored): the page is not cached.
    return sendPage(reply, 200, await view(request, session, { created: { apiKey: issued.apiKey, name } }));
  });

  scope.post('/keys/feed/reset', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    if ((await rotateDigestFeed(deps.store, session.accountId, deps.config.baseUrl)) === null) {
      throw new WebError(404, localeFor(request).t('web.keys.accountGone'));
    }
    return seeOther(reply, '/keys?notice=feed_reset#feed');
  });

  scope.post('/keys/:id/rename', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    const name = keyName(field(formOf(request), 'name'));
    if (id === null) throw new WebError(404, localeFor(request).t('web.keys.noSuchKey'));
    if (name === null)
      return sendPage(reply, 400, await view(request, session, { error: badName(localeFor(request)) }));
    if (!(await renameKey(deps.store, session.accountId, id, name))) {
      throw new WebError(404, localeFor(request).t('web.keys.noSuchKey'));
    }
    return seeOther(reply, '/keys?notice=renamed');
  });

  scope.post('/keys/:id/revoke', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    const revoked = id === null ? 'not_found' : await revokeKey(deps.store, session.accountId, id);
    if (revoked === 'not_found') {
      throw new WebError(404, localeFor(request).t('web.keys.notActive'));
    }
    if (revoked === 'last_key') {
      const error = localeFor(request).t('web.keys.lastKey');
      return sendPage(reply, 409, await view(request, session, { error }));
    }
    if (id === session.keyId) {
      // This browser signed in with it: the session has ended with the key.
      const secure = isSecure(deps.config.baseUrl);
      clearCookie(reply, secure, sessionCookieName(secure));
      return seeOther(reply, '/sign-in?notice=revoked');
    }
    return seeOther(reply, '/keys?notice=revoked');
  });
}

function keysPage(v: KeysView): SafeHtml {
  const { locale } = v.viewer;
  const live = v.keys.filter((k) => k.revoked_at === null);
  const revoked = v.keys.filter((k) => k.revoked_at !== null);
  return page({
    title: locale.t('web.keys.title'),
    locale,
    viewer: v.viewer,
    current: 'keys',
    body: html`<h1>${locale.t('web.keys.title')}</h1>
      ${v.notice === undefined ? null : html`<p class="notice" role="status">${v.notice}</p>`}
      ${v.error === undefined ? null : html`<p class="error" role="alert">${v.error}</p>`}
      ${v.created === undefined ? null : createdPanel(locale, v.created, v.baseUrl)}
      <p>${locale.t('web.keys.intro')}</p>
      <h2>${locale.t('web.keys.yourKeys')}</h2>
      <ul class="items">
        ${live.map((k) => keyRow(k, v, live.length === 1))}
      </ul>
      <h2 id="create-heading">${locale.t('web.keys.createHeading')}</h2>
      <form class="row" method="post" action="/keys" aria-labelledby="create-heading">
        ${csrfField(v.viewer)}
        <div class="grow">
          <label for="new-key-name">${locale.t('web.keys.name')}</label>
          <input
            id="new-key-name"
            name="name"
            type="text"
            required
            maxlength="${KEY_NAME_MAX}"
            placeholder="${locale.t('web.keys.namePlaceholder')}"
          />
        </div>
        <button type="submit">${locale.t('web.keys.createButton')}</button>
      </form>
      ${feedSection(v)}
      ${
        revoked.length === 0
          ? null
          : html`<h2>${locale.t('web.keys.revokedHeading')}</h2>
              <ul class="items">
                ${revoked.map(
                  (k) =>
                    html`<li>
                      <div class="main">
                        <span class="title">${k.name}</span>
                        <div class="meta">
                          <span class="mono">${displayPrefix(k.prefix)}</span> ·
                          ${k.revoked_at === null ? null : when(locale, 'web.keys.revokedAt', k.revoked_at, v)}
                        </div>
                      </div>
                    </li>`,
                )}
              </ul>`
      }`,
  });
}

/** "created 2 days ago": a message whose `when` is a <time> element, in the reader's language. */
function when(
  locale: Locale,
  key: 'web.keys.revokedAt' | 'web.keys.createdAt' | 'web.keys.lastUsed',
  iso: string,
  v: { zone: string; now: Date },
): SafeHtml {
  const at = timeElement(iso, v.zone, ago(iso, v.now, locale), locale).value;
  return new SafeHtml(locale.html(key, { when: at }, ['when']));
}

function keyRow(k: ApiKeyInfo, v: KeysView, only: boolean): SafeHtml {
  const { locale } = v.viewer;
  const own = k.id === v.session.keyId;
  return html`<li>
    <div class="main">
      <span class="title">${k.name}</span
      >${own ? html` <span class="muted">${locale.t('web.keys.ownKey')}</span>` : null}
      <div class="meta">
        <span class="mono">${displayPrefix(k.prefix)}</span> ·
        ${when(locale, 'web.keys.createdAt', k.created_at, v)} ·
        ${
          k.last_used_at === null
            ? locale.t('web.keys.neverUsed')
            : when(locale, 'web.keys.lastUsed', k.last_used_at, v)
        }
      </div>
    </div>
    <div class="actions">
      <form method="post" action="/keys/${k.id}/rename">
        ${csrfField(v.viewer)}
        <label class="visually-hidden" for="name-${k.id}"
          >${locale.t('web.keys.renameLabel', { name: k.name })}</label
        >
        <input
          id="name-${k.id}"
          name="name"
          type="text"
          required
          maxlength="${KEY_NAME_MAX}"
          value="${k.name}"
          size="12"
        />
        <button class="quiet" type="submit">${locale.t('web.keys.rename')}</button>
      </form>
      ${
        only
          ? // The server refuses to revoke the last active key (409): the API, bookmarklets and shortcuts need one.
            html`<p class="hint">${locale.t('web.keys.onlyKey')}</p>`
          : html`<form method="post" action="/keys/${k.id}/revoke">
              ${csrfField(v.viewer)}
              <button class="danger" type="submit">
                ${
                  // The visible words first, then which key, for a screen reader (WCAG 2.5.3: no aria-label).
                  own
                    ? html`${locale.t('web.keys.revokeOwn')}${unseen(locale.t('web.keys.revokeOwnWhich', { name: k.name }))}`
                    : html`${locale.t('web.keys.revoke')}${unseen(locale.t('web.keys.revokeWhich', { name: k.name }))}`
                }
              </button>
            </form>`
      }
    </div>
  </li>`;
}

function createdPanel(locale: Locale, created: { apiKey: string; name: string }, baseUrl: string): SafeHtml {
  return html`<section class="panel" aria-labelledby="created-heading">
    <h2 id="created-heading">${locale.t('web.keys.createdHeading', { name: created.name })}</h2>
    <p><strong>${locale.t('web.keys.copyNow')}</strong> ${locale.t('web.keys.fingerprint')}</p>
    <label for="created-key">${locale.t('web.keys.keyLabel')}</label>
    <input id="created-key" type="text" readonly value="${created.apiKey}" spellcheck="false" />
    ${saveInstructions(locale, baseUrl, created.apiKey)}
  </section>`;
}

function feedSection(v: KeysView): SafeHtml {
  const { locale } = v.viewer;
  return html`<h2 id="feed">${locale.t('web.keys.feedHeading')}</h2>
    <p>${locale.t('web.keys.feedText')}</p>
    <label for="feed-url">${locale.t('web.keys.feedLabel')}</label>
    <input id="feed-url" type="text" readonly value="${v.feedUrl}" spellcheck="false" />
    <form class="stack" method="post" action="/keys/feed/reset">
      ${csrfField(v.viewer)}
      <p class="hint">${locale.t('web.keys.feedHint')}</p>
      <div><button class="danger" type="submit">${locale.t('web.keys.feedReset')}</button></div>
    </form>`;
}
