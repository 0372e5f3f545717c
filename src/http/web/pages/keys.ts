import { foldWhitespace } from '../../../lib/text.js';
import type { FastifyInstance } from 'fastify';
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
  queryParam,
  requireSession,
  sendPage,
  seeOther,
  viewerOf,
} from '../context.js';
import { type SafeHtml, html } from '../html.js';
import { type Viewer, csrfField, page } from '../layout.js';
import { saveInstructions } from '../saveInstructions.js';
import { clearCookie, isSecure, sessionCookieName } from '../session.js';
import { ago, timeElement } from '../time.js';

export const KEY_NAME_MAX = 100;

const NOTICES: Record<string, string> = {
  renamed: 'Key renamed.',
  revoked: 'Key revoked. Anything still using it is refused from now on.',
  feed_reset:
    'The feed of your digests has a new address. The old one, and digest links in emails sent before, no longer work.',
};

/**
 * A key name as typed: control characters dropped (PostgreSQL refuses a NUL in text), whitespace folded,
 * trimmed (lib/text.ts foldWhitespace), 1 to 100 characters; null when it is not one.
 */
export function keyName(raw: string | undefined): string | null {
  const name = foldWhitespace(raw ?? '');
  return name === '' || name.length > KEY_NAME_MAX ? null : name;
}

const BAD_NAME = `Give the key a name of 1 to ${KEY_NAME_MAX} characters, such as “phone” or “laptop”.`;

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
  async function view(session: WebSession, extra: Partial<KeysView>): Promise<SafeHtml> {
    const keys = await listKeys(deps.store, session.accountId);
    const account = await showAccount(deps.store, session.accountId);
    const feedUrl = await digestFeedAddress(deps.store, session.accountId, deps.config.baseUrl);
    const viewer = viewerOf(session);
    if (viewer === null || account === null || feedUrl === null) {
      throw new WebError(404, 'This account no longer exists.');
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
    const notice = NOTICES[queryParam(request, 'notice') ?? ''];
    return sendPage(reply, 200, await view(session, { notice }));
  });

  scope.post('/keys', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const name = keyName(field(formOf(request), 'name'));
    if (name === null) return sendPage(reply, 400, await view(session, { error: BAD_NAME }));
    const issued = await issueKey(deps.store, session.accountId, name);
    if (issued === null) throw new WebError(404, 'This account no longer exists.');
    // Shown in this answer only (never in a URL, never stored): the page is not cached.
    return sendPage(reply, 200, await view(session, { created: { apiKey: issued.apiKey, name } }));
  });

  scope.post('/keys/feed/reset', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    if ((await rotateDigestFeed(deps.store, session.accountId, deps.config.baseUrl)) === null) {
      throw new WebError(404, 'This account no longer exists.');
    }
    return seeOther(reply, '/keys?notice=feed_reset#feed');
  });

  scope.post('/keys/:id/rename', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    const name = keyName(field(formOf(request), 'name'));
    if (id === null) throw new WebError(404, 'You have no such key.');
    if (name === null) return sendPage(reply, 400, await view(session, { error: BAD_NAME }));
    if (!(await renameKey(deps.store, session.accountId, id, name))) {
      throw new WebError(404, 'You have no such key.');
    }
    return seeOther(reply, '/keys?notice=renamed');
  });

  scope.post('/keys/:id/revoke', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    const revoked = id === null ? 'not_found' : await revokeKey(deps.store, session.accountId, id);
    if (revoked === 'not_found') {
      throw new WebError(404, 'That is not one of your active keys (it may already be revoked).');
    }
    if (revoked === 'last_key') {
      const error =
        'This is your only active key: without one, nothing could save links through the API and an account with no password or passkey could not sign in again. Create another key first.';
      return sendPage(reply, 409, await view(session, { error }));
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
  const live = v.keys.filter((k) => k.revoked_at === null);
  const revoked = v.keys.filter((k) => k.revoked_at !== null);
  return page({
    title: 'Keys',
    locale: v.viewer.locale,
    viewer: v.viewer,
    current: 'keys',
    body: html`<h1>Keys</h1>
      ${v.notice === undefined ? null : html`<p class="notice" role="status">${v.notice}</p>`}
      ${v.error === undefined ? null : html`<p class="error" role="alert">${v.error}</p>`}
      ${v.created === undefined ? null : createdPanel(v.created, v.baseUrl)}
      <p>
        A key lets a program, a bookmarklet or a phone shortcut save links to your queue, and lets you sign in
        here. Give each its own key: then you can revoke one without touching the others.
      </p>
      <h2>Your keys</h2>
      <ul class="items">
        ${live.map((k) => keyRow(k, v, live.length === 1))}
      </ul>
      <h2 id="create-heading">Create a key</h2>
      <form class="row" method="post" action="/keys" aria-labelledby="create-heading">
        ${csrfField(v.viewer)}
        <div class="grow">
          <label for="new-key-name">Name</label>
          <input
            id="new-key-name"
            name="name"
            type="text"
            required
            maxlength="${KEY_NAME_MAX}"
            placeholder="phone"
          />
        </div>
        <button type="submit">Create key</button>
      </form>
      ${feedSection(v)}
      ${
        revoked.length === 0
          ? null
          : html`<h2>Revoked keys</h2>
              <ul class="items">
                ${revoked.map(
                  (k) =>
                    html`<li>
                      <div class="main">
                        <span class="title">${k.name}</span>
                        <div class="meta">
                          <span class="mono">${displayPrefix(k.prefix)}</span> · revoked
                          ${k.revoked_at === null ? null : timeElement(k.revoked_at, v.zone, ago(k.revoked_at, v.now))}
                        </div>
                      </div>
                    </li>`,
                )}
              </ul>`
      }`,
  });
}

function keyRow(k: ApiKeyInfo, v: KeysView, only: boolean): SafeHtml {
  const own = k.id === v.session.keyId;
  return html`<li>
    <div class="main">
      <span class="title">${k.name}</span
      >${own ? html` <span class="muted">(this browser signed in with it)</span>` : null}
      <div class="meta">
        <span class="mono">${displayPrefix(k.prefix)}</span> · created
        ${timeElement(k.created_at, v.zone, ago(k.created_at, v.now))} ·
        ${
          k.last_used_at === null
            ? 'never used with the API'
            : html`last used ${timeElement(k.last_used_at, v.zone, ago(k.last_used_at, v.now))}`
        }
      </div>
    </div>
    <div class="actions">
      <form method="post" action="/keys/${k.id}/rename">
        ${csrfField(v.viewer)}
        <label class="visually-hidden" for="name-${k.id}">New name for ${k.name}</label>
        <input
          id="name-${k.id}"
          name="name"
          type="text"
          required
          maxlength="${KEY_NAME_MAX}"
          value="${k.name}"
          size="12"
        />
        <button class="quiet" type="submit">Rename</button>
      </form>
      ${
        only
          ? // The server refuses to revoke the last active key (409): the API, bookmarklets and shortcuts need one.
            html`<p class="hint">Your only key: create another key first to revoke this one.</p>`
          : html`<form method="post" action="/keys/${k.id}/revoke">
              ${csrfField(v.viewer)}
              <button class="danger" type="submit">
                ${
                  own
                    ? html`Revoke and sign out<span class="visually-hidden"> (key “${k.name}”)</span>`
                    : html`Revoke<span class="visually-hidden"> key “${k.name}”</span>`
                }
              </button>
            </form>`
      }
    </div>
  </li>`;
}

function createdPanel(created: { apiKey: string; name: string }, baseUrl: string): SafeHtml {
  return html`<section class="panel" aria-labelledby="created-heading">
    <h2 id="created-heading">Your new key “${created.name}”</h2>
    <p><strong>Copy it now: it is shown only this once.</strong> Tidings keeps only a fingerprint of it.</p>
    <label for="created-key">Key</label>
    <input id="created-key" type="text" readonly value="${created.apiKey}" spellcheck="false" />
    ${saveInstructions(baseUrl, created.apiKey)}
  </section>`;
}

function feedSection(v: KeysView): SafeHtml {
  return html`<h2 id="feed">Your digests as a feed</h2>
    <p>
      Follow your digests in a feed reader with this private address (Atom). It also opens the digests linked
      from your emails. Anyone who has it can read your digests, nothing more.
    </p>
    <label for="feed-url">Private feed address</label>
    <input id="feed-url" type="text" readonly value="${v.feedUrl}" spellcheck="false" />
    <form class="stack" method="post" action="/keys/feed/reset">
      ${csrfField(v.viewer)}
      <p class="hint">
        If it leaked, give it a new address: the old one, and the digest links in emails already sent, stop
        working.
      </p>
      <div><button class="danger" type="submit">Give the feed a new address</button></div>
    </form>`;
}
