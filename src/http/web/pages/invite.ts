import type { Locale } from '../../../i18n/locale.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Invitation, acceptInvitation, invitationFor } from '../../../accounts/invitations.js';
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_CHARS, passwordRefusal } from '../../../accounts/passwordHash.js';
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
import { webRefusal } from '../errors.js';
import { refusalWords } from '../refusals.js';
import { SafeHtml, html } from '../html.js';
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

/** Why an invitation cannot be accepted, in words for the person holding it (accounts' CLOSED_INVITATION). */
const CLOSED = {
  used: 'web.invite.closed.used',
  expired: 'web.invite.closed.expired',
  unknown: 'web.invite.closed.unknown',
} as const;

/**
 * The acceptance form's optional password (with its confirmation): set, the new account can sign in with
 * its e-mail address or name and it at once; left empty, the welcome page points to Settings, Sign-in,
 * where a password or a passkey can be added later. Never echoed back into the form.
 */
function passwordFields(locale: Locale): SafeHtml {
  return html`<div>
      <label for="password">${locale.t('web.invite.password')}</label>
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
        ${locale.t('web.invite.passwordHint', { min: PASSWORD_MIN_CHARS })}
      </p>
    </div>
    <div>
      <label for="confirm">${locale.t('web.invite.confirm')}</label>
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
function passwordOfForm(
  form: URLSearchParams,
  locale: Locale,
): { password: string | null; problem: string | null } {
  const password = field(form, 'password') ?? '';
  if (password === '') return { password: null, problem: null };
  if (password !== (field(form, 'confirm') ?? '')) {
    return { password: null, problem: locale.t('web.invite.passwordsDiffer') };
  }
  // The rule's facts (accounts/passwordHash.ts), in the reader's words.
  const refused = passwordRefusal(password);
  return { password, problem: refused === null ? null : refusalWords(refused, locale) };
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
  async function openInvitation(request: FastifyRequest, token: string): Promise<Invitation> {
    const found = await invitationFor(deps.store, token, deps.now());
    if (found.state === 'open') return found.invitation;
    throw new WebError(found.state === 'unknown' ? 404 : 410, localeFor(request).t(CLOSED[found.state]));
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
    const invitation = await openInvitation(request, tokenOf(request));
    return renderForm(request, reply, 200, { name: '', email: invitation.email ?? '', timezone: 'UTC' });
  });

  scope.post('/invite/:token', async (request, reply) => {
    const token = tokenOf(request);
    await openInvitation(request, token);
    const locale = localeFor(request);
    const body = formOf(request);
    const form: AcceptForm = {
      name: field(body, 'name') ?? '',
      email: field(body, 'email') ?? '',
      timezone: (field(body, 'timezone') ?? '').trim() || 'UTC',
    };
    if (checkedFormToken(request, inviteCookieName(secure()), field(body, '_csrf')) === null) {
      const error = locale.t('web.invite.formExpired');
      return renderForm(request, reply, 403, { ...form, error });
    }
    const typed = passwordOfForm(body, locale);
    if (typed.problem !== null) return renderForm(request, reply, 400, { ...form, error: typed.problem });
    let created: CreatedAccount;
    try {
      created = await acceptInvitation(deps.store, token, form, deps.now());
    } catch (err) {
      if (isTidingsError(err, 'invalid_input') || isTidingsError(err, 'email_taken')) {
        const refusal = webRefusal(err, deps.config, locale);
        if (refusal !== null) {
          return renderForm(request, reply, refusal.status, { ...form, error: refusal.message });
        }
      }
      // Used or expired since the form was shown (another acceptance won): the page that says which.
      if (isTidingsError(err, 'not_found')) {
        await openInvitation(request, token);
        throw new WebError(410, locale.t(CLOSED.used));
      }
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
    if (viewer === null) throw new WebError(503, locale.t('web.invite.signInFailed'));
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
    title: locale.t('web.invite.title'),
    viewer: null,
    body: html`<h1>${locale.t('web.invite.title')}</h1>
      <p>${locale.t('web.invite.intro')}</p>
      ${
        signedInAs === null
          ? null
          : html`<p class="notice" role="status">
              ${locale.t('web.invite.signedInAs', { name: signedInAs })}
            </p>`
      }
      ${form.error === undefined ? null : html`<p class="error" role="alert" id="accept-error">${form.error}</p>`}
      <form class="stack" method="post" action="/invite/${token}">
        <input type="hidden" name="_csrf" value="${csrf}" />
        <div>
          <label for="name">${locale.t('web.invite.name')}</label>
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
          <label for="email">${locale.t('web.invite.email')}</label>
          <input
            id="email"
            name="email"
            type="email"
            maxlength="320"
            autocomplete="email"
            value="${form.email}"
          />
          <p class="hint">${locale.t('web.invite.emailHint')}</p>
        </div>
        <div>
          <label for="timezone">${locale.t('web.invite.timezone')}</label>
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
            ${locale.t('web.invite.timezoneHint', { zone: 'Europe/Berlin' })}
          </p>
        </div>
        ${passwordFields(locale)}
        <div><button type="submit">${locale.t('web.invite.submit')}</button></div>
      </form>`,
  });
}

function welcomePage(viewer: Viewer, created: CreatedAccount): SafeHtml {
  const { locale } = viewer;
  const link = (href: string, label: string): string => html`<a href="${href}">${label}</a>`.value;
  return page({
    title: locale.t('web.invite.welcomeTitle'),
    locale,
    viewer,
    body: html`<h1>${locale.t('web.invite.welcome', { name: created.account.name })}</h1>
      <p class="notice" role="status">${locale.t('web.invite.made')}</p>
      <section class="panel" aria-labelledby="key-heading">
        <h2 id="key-heading">${locale.t('web.invite.keyHeading')}</h2>
        <p><strong>${locale.t('web.invite.copyNow')}</strong> ${locale.t('web.invite.keyUse')}</p>
        <label for="first-key">${locale.t('web.invite.keyLabel')}</label>
        <input id="first-key" type="text" readonly value="${created.apiKey}" spellcheck="false" />
      </section>
      <p>
        ${new SafeHtml(
          locale.html('web.invite.settings', { link: link('/settings', locale.t('web.nav.settings')) }, [
            'link',
          ]),
        )}
      </p>
      <p>
        ${new SafeHtml(
          locale.html(
            'web.invite.signIn',
            { link: link('/settings/sign-in', locale.t('web.settings.signInLinkLabel')) },
            ['link'],
          ),
        )}
      </p>
      <p><a href="/queue">${locale.t('web.invite.toQueue')}</a></p>`,
  });
}
