import { PASSKEY_NAME_MAX } from '../../../accounts/passkeyList.js';
import type { RelyingParty } from '../../../accounts/passkeys.js';
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_CHARS } from '../../../accounts/passwordHash.js';
import type { Session as WebSession } from '../../../accounts/sessions.js';
import type { PasskeyInfo } from '../../../store/passkeys.js';
import { type SafeHtml, html } from '../html.js';
import { type Viewer, csrfField, page } from '../layout.js';
import { PASSKEY_SCRIPT_PATH } from '../passkeyScript.js';
import { ago, timeElement } from '../time.js';

export interface SignInSettingsView {
  viewer: Viewer;
  session: WebSession;
  passwordSetAt: string | null;
  passkeys: PasskeyInfo[];
  zone: string;
  now: Date;
  rp: RelyingParty;
  notice?: string | undefined;
  error?: string | undefined;
}

/** Settings, Sign-in: the password (set, change, remove) and the passkeys (add, rename, delete). */
export function signInSettingsPage(v: SignInSettingsView): SafeHtml {
  const has = v.passwordSetAt !== null;
  return page({
    title: 'Sign-in',
    locale: v.viewer.locale,
    viewer: v.viewer,
    current: 'settings',
    scripts: [PASSKEY_SCRIPT_PATH],
    body: html`<p><a href="/settings">Settings</a></p>
      <h1>Sign-in</h1>
      ${v.notice === undefined ? null : html`<p class="notice" role="status">${v.notice}</p>`}
      ${v.error === undefined ? null : html`<p class="error" role="alert" id="sign-in-settings-error">${v.error}</p>`}
      <p>
        Besides an API key, you can sign in with a password (with your email address or account name) or with
        a passkey: then a phone signs in without pasting a key.
      </p>
      <h2 id="password-heading">Password</h2>
      <p>
        ${
          has && v.passwordSetAt !== null
            ? html`You have a password, set
              ${timeElement(v.passwordSetAt, v.zone, ago(v.passwordSetAt, v.now))}.`
            : html`You have no password yet.`
        }
      </p>
      <form class="stack" method="post" action="/settings/sign-in/password">
        ${csrfField(v.viewer)}
        <input type="text" name="username" value="${v.session.accountName}" autocomplete="username" hidden />
        ${
          has
            ? html`<div>
                <label for="current-password">Current password</label>
                <input
                  id="current-password"
                  name="current"
                  type="password"
                  required
                  maxlength="${PASSWORD_MAX_BYTES}"
                  autocomplete="current-password"
                />
              </div>`
            : null
        }
        <div>
          <label for="new-password">${has ? 'New password' : 'Password'}</label>
          <input
            id="new-password"
            name="password"
            type="password"
            required
            minlength="${PASSWORD_MIN_CHARS}"
            maxlength="${PASSWORD_MAX_BYTES}"
            autocomplete="new-password"
            aria-describedby="new-password-hint"
          />
          <p class="hint" id="new-password-hint">
            At least ${PASSWORD_MIN_CHARS} characters; a few words you will remember are a good password.
          </p>
        </div>
        <div>
          <label for="confirm-password">${has ? 'New password again' : 'Password again'}</label>
          <input
            id="confirm-password"
            name="confirm"
            type="password"
            required
            maxlength="${PASSWORD_MAX_BYTES}"
            autocomplete="new-password"
          />
        </div>
        <div><button type="submit">${has ? 'Change password' : 'Set password'}</button></div>
      </form>
      ${has ? removePasswordForm(v) : null}
      <h2 id="passkeys-heading">Passkeys</h2>
      ${passkeyList(v)} ${addPasskey(v)}`,
  });
}

function removePasswordForm(v: SignInSettingsView): SafeHtml {
  return html`<h3 id="remove-password-heading">Remove the password</h3>
    <form
      class="stack"
      method="post"
      action="/settings/sign-in/password/remove"
      aria-labelledby="remove-password-heading"
    >
      ${csrfField(v.viewer)}
      <div>
        <label for="remove-current-password">Current password</label>
        <input
          id="remove-current-password"
          name="current"
          type="password"
          required
          maxlength="${PASSWORD_MAX_BYTES}"
          autocomplete="current-password"
        />
      </div>
      <div><button class="danger" type="submit">Remove password</button></div>
    </form>`;
}

function passkeyList(v: SignInSettingsView): SafeHtml {
  if (v.passkeys.length === 0) return html`<p>You have no passkeys yet.</p>`;
  return html`<ul class="items">
    ${v.passkeys.map(
      (k) =>
        html`<li>
          <div class="main">
            <span class="title">${k.name}</span>${
              k.id === v.session.passkeyId
                ? html` <span class="muted">(this browser signed in with it)</span>`
                : null
            }
            <div class="meta">
              added ${timeElement(k.createdAt, v.zone, ago(k.createdAt, v.now))} ·
              ${
                k.lastUsedAt === null
                  ? 'never used'
                  : html`last used ${timeElement(k.lastUsedAt, v.zone, ago(k.lastUsedAt, v.now))}`
              }
            </div>
          </div>
          <div class="actions">
            <form method="post" action="/settings/sign-in/passkeys/${k.id}/rename">
              ${csrfField(v.viewer)}
              <label class="visually-hidden" for="passkey-name-${k.id}">New name for ${k.name}</label>
              <input
                id="passkey-name-${k.id}"
                name="name"
                type="text"
                required
                maxlength="${PASSKEY_NAME_MAX}"
                value="${k.name}"
              />
              <button class="quiet" type="submit" aria-label="Rename ${k.name}">Rename</button>
            </form>
            <form method="post" action="/settings/sign-in/passkeys/${k.id}/delete">
              ${csrfField(v.viewer)}
              <button class="danger" type="submit" aria-label="Delete ${k.name}">Delete</button>
            </form>
          </div>
        </li>`,
    )}
  </ul>`;
}

function addPasskey(v: SignInSettingsView): SafeHtml {
  const insecure = new URL(v.rp.origin).protocol !== 'https:' && v.rp.id !== 'localhost';
  return html`<div data-passkey-box hidden>
      <h3 id="add-passkey-heading">Add a passkey</h3>
      ${
        insecure
          ? html`<p class="hint">
              Browsers accept passkeys only over https: this Tidings’ public address is ${v.rp.origin}.
            </p>`
          : null
      }
      <form
        class="stack"
        method="post"
        action="/settings/sign-in/passkeys"
        data-passkey="register"
        data-options="/settings/sign-in/passkeys/options"
        aria-labelledby="add-passkey-heading"
      >
        ${csrfField(v.viewer)}
        <input type="hidden" name="credential" value="" />
        <div>
          <label for="passkey-name">Name</label>
          <input
            id="passkey-name"
            name="name"
            type="text"
            required
            maxlength="${PASSKEY_NAME_MAX}"
            placeholder="phone"
            aria-describedby="passkey-name-hint"
          />
          <p class="hint" id="passkey-name-hint">
            Which device or password manager holds it, such as “phone”.
          </p>
        </div>
        <p class="error" role="alert" data-passkey-status hidden></p>
        <div><button type="submit">Add a passkey</button></div>
      </form>
    </div>
    <p class="hint" data-passkey-fallback>
      Adding a passkey needs a browser that supports passkeys, with JavaScript on. The password and your keys
      work without.
    </p>`;
}
