import type { Locale } from '../../../i18n/locale.js';
import { SESSION_DAYS } from '../../../accounts/sessions.js';
import { IDENTIFIER_MAX } from '../../../accounts/passwords.js';
import { PASSWORD_MAX_BYTES } from '../../../accounts/passwordHash.js';
import { SafeHtml, html } from '../html.js';
import { page } from '../layout.js';
import { PASSKEY_SCRIPT_PATH } from '../passkeyScript.js';

/** What the sign-in page shows: a notice or an error, where to go next, the identifier typed. */
export interface SignInForm {
  next: string | null;
  notice?: string | undefined;
  error?: string | undefined;
  identifier?: string | undefined;
}

/** Why passkeys cannot work at the base URL (accounts/passkeys.ts `passkeyProblem`), in words. */
function passkeysUnavailable(
  locale: Locale,
  problem: 'ip_address' | 'plain_http',
  baseUrl: string,
): SafeHtml {
  const address = html`<code>${baseUrl}</code>`.value;
  const setting = html`<code>TIDINGS_BASE_URL</code>`.value;
  return html`<h2 id="passkey-heading">${locale.t('web.signIn.passkeys')}</h2>
    <p class="hint" id="passkeys-unavailable">
      ${new SafeHtml(
        locale.html(
          'web.signIn.passkeysUnavailable',
          { problem: problem === 'ip_address' ? 'ipAddress' : 'plainHttp', address, setting },
          ['address', 'setting'],
        ),
      )}
    </p>`;
}

/**
 * The sign-in page: an e-mail address or account name with a password, or an API key, and a passkey. It
 * leads with what can work at this address: where a browser can use passkeys (https or localhost, and a
 * domain name), the passkey comes first (shown when the browser can use one); elsewhere the password and
 * the key come first and the page says why passkeys are not offered. Each form carries the double-submit
 * token.
 */
export function signInPage(
  locale: Locale,
  token: string,
  form: SignInForm,
  where: { baseUrl: string; passkeyProblem: 'ip_address' | 'plain_http' | null },
): SafeHtml {
  const csrf = html`<input type="hidden" name="_csrf" value="${token}" />`;
  const next = form.next === null ? null : html`<input type="hidden" name="next" value="${form.next}" />`;
  const described = (hint: string): string => `${hint}${form.error === undefined ? '' : ' sign-in-error'}`;
  return page({
    locale,
    title: locale.t('web.signIn.title'),
    viewer: null,
    scripts: [PASSKEY_SCRIPT_PATH],
    body: html`<h1>${locale.t('web.signIn.title')}</h1>
      ${form.notice === undefined ? null : html`<p class="notice" role="status">${form.notice}</p>`}
      ${form.error === undefined ? null : html`<p class="error" role="alert" id="sign-in-error">${form.error}</p>`}
      ${
        where.passkeyProblem === null
          ? html`<div data-passkey-box hidden>
              <h2 id="passkey-heading">${locale.t('web.signIn.withPasskey')}</h2>
              <form
                class="stack"
                method="post"
                action="/sign-in/passkey"
                data-passkey="sign-in"
                data-options="/sign-in/passkey/options"
              >
                ${csrf}${next}
                <input type="hidden" name="credential" value="" />
                <p class="hint">${locale.t('web.signIn.passkeyHint')}</p>
                <p class="error" role="alert" data-passkey-status hidden></p>
                <div><button type="submit">${locale.t('web.signIn.passkeyButton')}</button></div>
              </form>
            </div>`
          : null
      }
      <h2 id="password-heading">${locale.t('web.signIn.withPassword')}</h2>
      <form class="stack" method="post" action="/sign-in/password">
        ${csrf}${next}
        <div>
          <label for="identifier">${locale.t('web.signIn.identifier')}</label>
          <input
            id="identifier"
            name="identifier"
            type="text"
            required
            maxlength="${IDENTIFIER_MAX}"
            autocomplete="username"
            autocapitalize="off"
            spellcheck="false"
            value="${form.identifier ?? ''}"
            aria-describedby="${described('identifier-hint')}"
          />
          <p class="hint" id="identifier-hint">${locale.t('web.signIn.identifierHint')}</p>
        </div>
        <div>
          <label for="password">${locale.t('web.signIn.password')}</label>
          <input
            id="password"
            name="password"
            type="password"
            required
            maxlength="${PASSWORD_MAX_BYTES}"
            autocomplete="current-password"
          />
        </div>
        <div><button type="submit">${locale.t('web.signIn.passwordButton')}</button></div>
      </form>
      <h2 id="key-heading">${locale.t('web.signIn.withKey')}</h2>
      <form class="stack" method="post" action="/sign-in">
        ${csrf}${next}
        <div>
          <label for="key">${locale.t('web.signIn.key')}</label>
          <input
            id="key"
            name="key"
            type="password"
            required
            autocomplete="off"
            spellcheck="false"
            autocapitalize="off"
            aria-describedby="${described('key-hint')}"
          />
          <p class="hint" id="key-hint">
            ${new SafeHtml(
              locale.html('web.signIn.keyHint', { command: html`<code>tidings key create</code>`.value }, [
                'command',
              ]),
            )}
          </p>
        </div>
        <div><button type="submit">${locale.t('web.signIn.keyButton')}</button></div>
      </form>
      ${where.passkeyProblem === null ? null : passkeysUnavailable(locale, where.passkeyProblem, where.baseUrl)}
      <p class="muted">${locale.t('web.signIn.staysSignedIn', { days: SESSION_DAYS })}</p>`,
  });
}
