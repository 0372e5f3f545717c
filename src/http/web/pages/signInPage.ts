import type { Locale } from '../../../i18n/locale.js';
import { SESSION_DAYS } from '../../../accounts/sessions.js';
import { IDENTIFIER_MAX } from '../../../accounts/passwords.js';
import { PASSWORD_MAX_BYTES } from '../../../accounts/passwordHash.js';
import { type SafeHtml, html } from '../html.js';
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
function passkeysUnavailable(problem: 'ip_address' | 'plain_http', baseUrl: string): SafeHtml {
  const why =
    problem === 'ip_address'
      ? html`a browser offers them only at an address with a name, and Tidings is at <code>${baseUrl}</code>,
          an IP address`
      : html`a browser offers them only over https (or on localhost), and Tidings is at
          <code>${baseUrl}</code>, plain http`;
  return html`<h2 id="passkey-heading">Passkeys</h2>
    <p class="hint" id="passkeys-unavailable">
      Passkeys cannot be used here: ${why}. Sign in with your password or a key. Whoever runs Tidings can set
      <code>TIDINGS_BASE_URL</code> to its https address to offer passkeys.
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
    title: 'Sign in',
    viewer: null,
    scripts: [PASSKEY_SCRIPT_PATH],
    body: html`<h1>Sign in</h1>
      ${form.notice === undefined ? null : html`<p class="notice" role="status">${form.notice}</p>`}
      ${form.error === undefined ? null : html`<p class="error" role="alert" id="sign-in-error">${form.error}</p>`}
      ${
        where.passkeyProblem === null
          ? html`<div data-passkey-box hidden>
              <h2 id="passkey-heading">With a passkey</h2>
              <form
                class="stack"
                method="post"
                action="/sign-in/passkey"
                data-passkey="sign-in"
                data-options="/sign-in/passkey/options"
              >
                ${csrf}${next}
                <input type="hidden" name="credential" value="" />
                <p class="hint">
                  Your phone, computer or security key confirms it is you: no name or password to type.
                </p>
                <p class="error" role="alert" data-passkey-status hidden></p>
                <div><button type="submit">Sign in with a passkey</button></div>
              </form>
            </div>`
          : null
      }
      <h2 id="password-heading">With your password</h2>
      <form class="stack" method="post" action="/sign-in/password">
        ${csrf}${next}
        <div>
          <label for="identifier">Email address or account name</label>
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
          <p class="hint" id="identifier-hint">The address your digests go to, or your account’s name.</p>
        </div>
        <div>
          <label for="password">Password</label>
          <input
            id="password"
            name="password"
            type="password"
            required
            maxlength="${PASSWORD_MAX_BYTES}"
            autocomplete="current-password"
          />
        </div>
        <div><button type="submit">Sign in with password</button></div>
      </form>
      <h2 id="key-heading">With an API key</h2>
      <form class="stack" method="post" action="/sign-in">
        ${csrf}${next}
        <div>
          <label for="key">API key</label>
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
            Any of your keys works: the one printed when Tidings first started, or one made with
            <code>tidings key create</code>.
          </p>
        </div>
        <div><button type="submit">Sign in with key</button></div>
      </form>
      ${where.passkeyProblem === null ? null : passkeysUnavailable(where.passkeyProblem, where.baseUrl)}
      <p class="muted">
        This browser then stays signed in until you sign out, until ${SESSION_DAYS} days pass without a visit,
        or until the key or passkey you used is revoked or deleted (or the password you used is changed). Set
        a password or add a passkey under Settings, Sign-in.
      </p>`,
  });
}
