import { PASSKEY_NAME_MAX } from '../../../accounts/passkeyList.js';
import type { RelyingParty } from '../../../accounts/passkeys.js';
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_CHARS } from '../../../accounts/passwordHash.js';
import type { Session as WebSession } from '../../../accounts/sessions.js';
import type { PasskeyInfo } from '../../../store/passkeys.js';
import { SafeHtml, html } from '../html.js';
import { type Viewer, csrfField, page } from '../layout.js';
import { PASSKEY_SCRIPT_PATH } from '../passkeyScript.js';
import { localeAgoElement } from '../localeTime.js';

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
  const { locale } = v.viewer;
  return page({
    title: locale.t('web.signIn.settings.title'),
    locale: v.viewer.locale,
    viewer: v.viewer,
    current: 'settings',
    scripts: [PASSKEY_SCRIPT_PATH],
    body: html`<p><a href="/settings">${locale.t('web.settings.title')}</a></p>
      <h1>${locale.t('web.signIn.settings.title')}</h1>
      ${v.notice === undefined ? null : html`<p class="notice" role="status">${v.notice}</p>`}
      ${v.error === undefined ? null : html`<p class="error" role="alert" id="sign-in-settings-error">${v.error}</p>`}
      <p>${locale.t('web.signIn.settings.intro')}</p>
      <h2 id="password-heading">${locale.t('web.signIn.password')}</h2>
      <p>
        ${
          has && v.passwordSetAt !== null
            ? new SafeHtml(
                locale.html(
                  'web.signIn.settings.hasPassword',
                  { when: localeAgoElement(locale, v.passwordSetAt, v.zone, v.now).value },
                  ['when'],
                ),
              )
            : locale.t('web.signIn.settings.noPassword')
        }
      </p>
      <form class="stack" method="post" action="/settings/sign-in/password">
        ${csrfField(v.viewer)}
        <input type="text" name="username" value="${v.session.accountName}" autocomplete="username" hidden />
        ${
          has
            ? html`<div>
                <label for="current-password">${locale.t('web.signIn.settings.current')}</label>
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
          <label for="new-password"
            >${locale.t(has ? 'web.signIn.settings.newPassword' : 'web.signIn.password')}</label
          >
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
            ${locale.t('web.signIn.settings.passwordHint', { min: PASSWORD_MIN_CHARS })}
          </p>
        </div>
        <div>
          <label for="confirm-password"
            >${locale.t(has ? 'web.signIn.settings.newPasswordAgain' : 'web.signIn.settings.passwordAgain')}</label
          >
          <input
            id="confirm-password"
            name="confirm"
            type="password"
            required
            maxlength="${PASSWORD_MAX_BYTES}"
            autocomplete="new-password"
          />
        </div>
        <div>
          <button type="submit">
            ${locale.t(has ? 'web.signIn.settings.change' : 'web.signIn.settings.set')}
          </button>
        </div>
      </form>
      ${has ? removePasswordForm(v) : null}
      <h2 id="passkeys-heading">${locale.t('web.signIn.passkeys')}</h2>
      ${passkeyList(v)} ${addPasskey(v)}`,
  });
}

function removePasswordForm(v: SignInSettingsView): SafeHtml {
  const { locale } = v.viewer;
  return html`<h3 id="remove-password-heading">${locale.t('web.signIn.settings.removeHeading')}</h3>
    <form
      class="stack"
      method="post"
      action="/settings/sign-in/password/remove"
      aria-labelledby="remove-password-heading"
    >
      ${csrfField(v.viewer)}
      <div>
        <label for="remove-current-password">${locale.t('web.signIn.settings.current')}</label>
        <input
          id="remove-current-password"
          name="current"
          type="password"
          required
          maxlength="${PASSWORD_MAX_BYTES}"
          autocomplete="current-password"
        />
      </div>
      <div><button class="danger" type="submit">${locale.t('web.signIn.settings.remove')}</button></div>
    </form>`;
}

function passkeyList(v: SignInSettingsView): SafeHtml {
  const { locale } = v.viewer;
  if (v.passkeys.length === 0) return html`<p>${locale.t('web.signIn.settings.noPasskeys')}</p>`;
  return html`<ul class="items">
    ${v.passkeys.map(
      (k) =>
        html`<li>
          <div class="main">
            <span class="title">${k.name}</span>${
              k.id === v.session.passkeyId
                ? html` <span class="muted">${locale.t('web.signIn.settings.thisBrowser')}</span>`
                : null
            }
            <div class="meta">
              ${new SafeHtml(
                locale.html(
                  'web.signIn.settings.added',
                  { when: localeAgoElement(locale, k.createdAt, v.zone, v.now).value },
                  ['when'],
                ),
              )}
              ·
              ${
                k.lastUsedAt === null
                  ? locale.t('web.signIn.settings.neverUsed')
                  : new SafeHtml(
                      locale.html(
                        'web.signIn.settings.lastUsed',
                        { when: localeAgoElement(locale, k.lastUsedAt, v.zone, v.now).value },
                        ['when'],
                      ),
                    )
              }
            </div>
          </div>
          <div class="actions">
            <form method="post" action="/settings/sign-in/passkeys/${k.id}/rename">
              ${csrfField(v.viewer)}
              <label class="visually-hidden" for="passkey-name-${k.id}"
                >${locale.t('web.signIn.settings.newName', { name: k.name })}</label
              >
              <input
                id="passkey-name-${k.id}"
                name="name"
                type="text"
                required
                maxlength="${PASSKEY_NAME_MAX}"
                value="${k.name}"
              />
              <button
                class="quiet"
                type="submit"
                aria-label="${locale.t('web.signIn.settings.renameLabel', { name: k.name })}"
              >
                ${locale.t('web.signIn.settings.rename')}
              </button>
            </form>
            <form method="post" action="/settings/sign-in/passkeys/${k.id}/delete">
              ${csrfField(v.viewer)}
              <button
                class="danger"
                type="submit"
                aria-label="${locale.t('web.signIn.settings.deleteLabel', { name: k.name })}"
              >
                ${locale.t('web.signIn.settings.delete')}
              </button>
            </form>
          </div>
        </li>`,
    )}
  </ul>`;
}

function addPasskey(v: SignInSettingsView): SafeHtml {
  const { locale } = v.viewer;
  const insecure = new URL(v.rp.origin).protocol !== 'https:' && v.rp.id !== 'localhost';
  return html`<div data-passkey-box hidden>
      <h3 id="add-passkey-heading">${locale.t('web.signIn.settings.addPasskey')}</h3>
      ${
        insecure
          ? html`<p class="hint">${locale.t('web.signIn.settings.insecure', { origin: v.rp.origin })}</p>`
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
          <label for="passkey-name">${locale.t('web.profile.name')}</label>
          <input
            id="passkey-name"
            name="name"
            type="text"
            required
            maxlength="${PASSKEY_NAME_MAX}"
            placeholder="${locale.t('web.signIn.settings.namePlaceholder')}"
            aria-describedby="passkey-name-hint"
          />
          <p class="hint" id="passkey-name-hint">${locale.t('web.signIn.settings.nameHint')}</p>
        </div>
        <p class="error" role="alert" data-passkey-status hidden></p>
        <div><button type="submit">${locale.t('web.signIn.settings.addPasskey')}</button></div>
      </form>
    </div>
    <p class="hint" data-passkey-fallback>${locale.t('web.signIn.settings.needsScript')}</p>`;
}
