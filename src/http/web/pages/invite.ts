import type { Locale } from '../../../i18n/locale.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  CLOSED_INVITATION,
  type Invitation,
  acceptInvitation,
  invitationFor,
} from '../../../accounts/invitations.js';
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_CHARS, passwordProblem } from '../../../accounts/passwordHash.js';
import { setAccountPassword } from '../../../accounts/passwords.js';
import type { CreatedAccount } from '../../../accounts/service.js';
import { closeSession, findSession, openSession } from '../../../accounts/sessions.js';
import { isTidingsError } from '../../../errors.js';
import {
  type WebDeps,
  WebError,
  field,
  formOf,
  rememberSession,
  sendPage,
  sessionOf,
  viewerOf,
  localeFor,
} from '../context.js';
import { sentence, webRefusal } from '../errors.js';
import { type SafeHtml, html } from '../html.js';
import { type Viewer, page } from '../layout.js';
import {
  checkedFormToken,
  clearCookie,
  isSecure,
  issueFormToken,
  sessionCookieName,
  setCookie,
} from '../session.js';

/** The acceptance form's own CSRF cookie (double submit, as the sign-in form: there is no session yet). */
const inviteCookieName = (secure: boolean): string => (secure ? '__Host-tidings_invite' : 'tidings_invite');
const FORM_TOKEN_SECONDS = 12 * 60 * 60;

interface AcceptForm {
  name: string;
  email: string;
  timezone: string;
  error?: string | undefined;
}

/**
 * The acceptance form's optional password (with its confirmation): set, the new account can sign in with
 * its e-mail address or name and it at once; left empty, the welcome page points to Settings, Sign-in,
 * where a password or a passkey can be added later. Never echoed back into the form.
 */
function passwordFields(): SafeHtml {
  return html`<div>
      <label for="password">Password (optional)</label>
      <input
        id="password"
        name="password"
        type="password"
        minlength="${PASSWORD_MIN_CHARS}"
        maxlength="${PASSWORD_MAX_BYTES}"
        autocomplete="new-password"
        aria-describedby="password-hint"
      />
      <p class="hint" id="password-hint">
        At least ${PASSWORD_MIN_CHARS} characters, to sign in with your e-mail address or name. You can also
        set one, or add a passkey, later in Settings.
      </p>
    </div>
    <div>
      <label for="confirm">Password again</label>
      <input
        id="confirm"
        name="confirm"
        type="password"
        maxlength="${PASSWORD_MAX_BYTES}"
        autocomplete="new-password"
      />
    </div>`;
}

/** What is wrong with the password typed on the acceptance form; null when none was typed or it is fine. */
function passwordOfForm(form: URLSearchParams): { password: string | null; problem: string | null } {
  const password = field(form, 'password') ?? '';
  if (password === '') return { password: null, problem: null };
  if (password !== (field(form, 'confirm') ?? '')) {
    return { password: null, problem: 'the two passwords differ: type the same password twice' };
  }
  return { password, problem: passwordProblem(password) };
}

/**
 * An invitation's page: whoever holds the link names their account, has it made and is signed in, and sees
 * its first API key once. A used, expired or unknown link gets a page saying so (410, or 404 when unknown).
 */
export function registerInvite(scope: FastifyInstance, deps: WebDeps): void {
  const secure = (): boolean => isSecure(deps.config.baseUrl);
  const tokenOf = (request: FastifyRequest): string =>
    (request.params as Record<string, string | undefined>).token ?? '';

  /** The invitation the link names, if it still works; else the page that says why not. */
  async function openInvitation(token: string): Promise<Invitation> {
    const found = await invitationFor(deps.store, token, deps.now());
    if (found.state === 'open') return found.invitation;
    throw new WebError(found.state === 'unknown' ? 404 : 410, CLOSED_INVITATION[found.state]);
  }

  function renderForm(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    form: AcceptForm,
  ): FastifyReply {
    const csrf = issueFormToken(request, reply, secure(), inviteCookieName(secure()), FORM_TOKEN_SECONDS);
    const signedInAs = sessionOf(request)?.accountName ?? null;
    return sendPage(reply, status, acceptPage(localeFor(request), tokenOf(request), csrf, form, signedInAs));
  }

  scope.get('/invite/:token', async (request, reply) => {
    const invitation = await openInvitation(tokenOf(request));
    return renderForm(request, reply, 200, { name: '', email: invitation.email ?? '', timezone: 'UTC' });
  });

  scope.post('/invite/:token', async (request, reply) => {
    const token = tokenOf(request);
    await openInvitation(token);
    const body = formOf(request);
    const form: AcceptForm = {
      name: field(body, 'name') ?? '',
      email: field(body, 'email') ?? '',
      timezone: (field(body, 'timezone') ?? '').trim() || 'UTC',
    };
    if (checkedFormToken(request, inviteCookieName(secure()), field(body, '_csrf')) === null) {
      const error = 'The form had expired. It is fresh again now: send it once more.';
      return renderForm(request, reply, 403, { ...form, error });
    }
    const typed = passwordOfForm(body);
    if (typed.problem !== null) {
      return renderForm(request, reply, 400, { ...form, error: sentence(typed.problem) });
    }
    let created: CreatedAccount;
    try {
      created = await acceptInvitation(deps.store, token, form, deps.now());
    } catch (err) {
      // In the reader's words (webRefusal): a bad name or address (400), an address taken (409).
      const refusal = webRefusal(err, deps.config, localeFor(request));
      if (refusal === null) throw err;
      if (isTidingsError(err, 'invalid_input') || isTidingsError(err, 'email_taken')) {
        return renderForm(request, reply, refusal.status, { ...form, error: refusal.message });
      }
      if (isTidingsError(err, 'not_found')) throw new WebError(410, refusal.message);
      throw err;
    }
    if (typed.password !== null) {
      const next = typed.password;
      await setAccountPassword(
        deps.store,
        created.account.id,
        { current: null, next, keepSessionId: null },
        deps.now(),
      );
    }

    // Signed in as the new account: a new session, as a sign-in with its key would open.
    const previous = sessionOf(request);
    if (previous !== null) await closeSession(deps.store, previous);
    const auth = { accountId: created.account.id, keyId: created.keyInfo.id, queueVersion: 0 };
    const opened = await openSession(deps.store, auth, deps.now());
    setCookie(reply, secure(), sessionCookieName(secure()), opened.token, opened.maxAgeSeconds);
    clearCookie(reply, secure(), inviteCookieName(secure()));
    const session = await findSession(deps.store, opened.token, deps.now());
    if (session !== null) rememberSession(request, session.session);
    const viewer = viewerOf(session?.session ?? null);
    if (viewer === null)
      throw new WebError(503, 'Your account is made, but signing in failed. Sign in with its key.');
    // The key is in this answer only (never in a URL, never stored): the page is not cached.
    return sendPage(reply, 200, welcomePage(viewer, created));
  });
}

function acceptPage(
  locale: Locale,
  token: string,
  csrf: string,
  form: AcceptForm,
  signedInAs: string | null,
): SafeHtml {
  return page({
    locale,
    title: 'Join Tidings',
    viewer: null,
    body: html`<h1>Join Tidings</h1>
      <p>
        You are invited to an account of your own: links you save, and the feeds you follow, come to you once
        a day as one digest.
      </p>
      ${
        signedInAs === null
          ? null
          : html`<p class="notice" role="status">
              This browser is signed in as ${signedInAs}. Accepting signs it in as the new account instead.
            </p>`
      }
      ${form.error === undefined ? null : html`<p class="error" role="alert" id="accept-error">${form.error}</p>`}
      <form class="stack" method="post" action="/invite/${token}">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <div>
          <label for="name">Your name</label>
          <input
            id="name"
            name="name"
            type="text"
            required
            maxlength="200"
            autocomplete="name"
            value="${form.name}"
          />
        </div>
        <div>
          <label for="email">Email address (optional)</label>
          <input
            id="email"
            name="email"
            type="email"
            maxlength="320"
            autocomplete="email"
            value="${form.email}"
          />
          <p class="hint">Where your digest is emailed, if you want it emailed.</p>
        </div>
        <div>
          <label for="timezone">Time zone</label>
          <input
            id="timezone"
            name="timezone"
            type="text"
            maxlength="100"
            spellcheck="false"
            autocomplete="off"
            value="${form.timezone}"
            aria-describedby="timezone-hint"
          />
          <p class="hint" id="timezone-hint">
            A city such as Berlin or New York, or an IANA name such as Europe/Berlin: your digest comes at
            07:00 there.
          </p>
        </div>
        ${passwordFields()}
        <div><button type="submit">Create my account</button></div>
      </form>`,
  });
}

function welcomePage(viewer: Viewer, created: CreatedAccount): SafeHtml {
  return page({
    title: 'Welcome',
    locale: viewer.locale,
    viewer,
    body: html`<h1>Welcome, ${created.account.name}</h1>
      <p class="notice" role="status">Your account is made, and this browser is signed in.</p>
      <section class="panel" aria-labelledby="key-heading">
        <h2 id="key-heading">Your API key</h2>
        <p>
          <strong>Copy it now: it is shown only this once.</strong> Programs, bookmarklets and phone shortcuts
          save links with it, and it signs you in on another device. More keys are made on the Keys page.
        </p>
        <label for="first-key">Key</label>
        <input id="first-key" type="text" readonly value="${created.apiKey}" spellcheck="false" />
      </section>
      <p><a href="/settings">Settings</a>: when your digest comes, your email address, your name.</p>
      <p>
        <a href="/settings/sign-in">Sign-in settings</a>: add a passkey, or a password, to sign in on your
        phone without this key.
      </p>
      <p><a href="/queue">Go to your queue</a></p>`,
  });
}
