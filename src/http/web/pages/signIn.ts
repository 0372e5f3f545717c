import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate } from '../../../accounts/authorize.js';
import {
  passkeyProblem,
  passkeySignInOptions,
  relyingParty,
  signInWithPasskey,
} from '../../../accounts/passkeys.js';
import { signInWithPassword } from '../../../accounts/passwords.js';
import { type SessionGrant, closeSession, openSession } from '../../../accounts/sessions.js';
import {
  SECURITY_HEADERS,
  type WebDeps,
  field,
  formOf,
  localPath,
  queryParam,
  sendPage,
  seeOther,
  sessionOf,
  localeFor,
} from '../context.js';
import { ENGLISH, type Locale } from '../../../i18n/locale.js';
import type { LabelKey } from '../localeTime.js';
import { InvalidKeyLimiter } from '../../invalidKeyLimiter.js';
import { PASSKEY_PAGE_HEADERS } from '../passkeyScript.js';
import {
  checkedFormToken,
  clearCookie,
  isSecure,
  issueFormToken,
  sessionCookieName,
  setCookie,
  signInCookieName,
  tokensMatch,
} from '../session.js';
import { type SignInForm, signInPage } from './signInPage.js';

const NOTICES: Record<string, LabelKey> = {
  signed_out: 'web.signIn.notice.signedOut',
  ended: 'web.signIn.notice.ended',
  revoked: 'web.signIn.notice.revoked',
  passkey_deleted: 'web.signIn.notice.passkeyDeleted',
  deleted: 'web.signIn.notice.deleted',
};

/** The sign-in form's token lives this long (an open tab can still sign in after a lunch break). */
const FORM_TOKEN_SECONDS = 12 * 60 * 60;

/** The one message for a failed password sign-in, whatever failed (no telling which accounts exist). */
export const PASSWORD_REFUSED = ENGLISH.t('web.signIn.error.passwordRefused');

/** Passkey sign-in options one address may ask for in a minute (each keeps a challenge for 5 minutes). */
export const PASSKEY_OPTIONS_PER_MINUTE = 20;

/**
 * Sign in with an API key, a password or a passkey; sign out. The sign-in forms have no session to bind a
 * CSRF token to, so they use a double-submit token: a random value in an HttpOnly cookie and in the form,
 * which must match (a page on another site can neither read the cookie nor set it). The same cookie binds
 * a passkey sign-in's challenge. Attempts of every method count against one limit per address, each
 * counted before it is checked and given back when it succeeds; passwords also against a limit per
 * account (accounts/passwordHolds.ts), which holds password sign-in only. The limits are per process.
 */
export function registerSignIn(scope: FastifyInstance, deps: WebDeps): void {
  const secure = (): boolean => isSecure(deps.config.baseUrl);
  const limiter = deps.signInLimiter;
  const clock = (): number => deps.now().getTime();
  const holds = deps.passwordHolds;
  const optionsLimiter = new InvalidKeyLimiter(PASSKEY_OPTIONS_PER_MINUTE, 60_000, 100_000, clock);

  function renderForm(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    form: SignInForm,
  ): FastifyReply {
    const token = issueFormToken(request, reply, secure(), signInCookieName(secure()), FORM_TOKEN_SECONDS);
    const { baseUrl } = deps.config;
    const body = signInPage(localeFor(request), token, form, {
      baseUrl,
      passkeyProblem: passkeyProblem(baseUrl),
    });
    return sendPage(reply, status, body, PASSKEY_PAGE_HEADERS);
  }

  const heldMessage = (locale: Locale, seconds: number): string =>
    locale.t('web.signIn.error.held', { minutes: Math.ceil(seconds / 60) });

  const tooManyMessage = (locale: Locale, seconds: number): string =>
    locale.t('web.signIn.error.tooMany', { minutes: Math.ceil(seconds / 60) });

  /**
   * What every sign-in POST does first: counts the attempt against the address (refused with 429, unchecked,
   * when it is over its limit) and checks that the form's token is the cookie's. Returns the reply already
   * sent when not, else the cookie's token; the attempt stays counted unless `succeeded` gives it back.
   */
  function admit(request: FastifyRequest, reply: FastifyReply, form: SignInForm): FastifyReply | string {
    const wait = limiter.reserve(request.ip);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      return renderForm(request, reply, 429, { ...form, error: tooManyMessage(localeFor(request), wait) });
    }
    const cookieToken = checkedFormToken(
      request,
      signInCookieName(secure()),
      field(formOf(request), '_csrf'),
    );
    if (cookieToken === null) {
      limiter.giveBack(request.ip); // nothing was checked
      return renderForm(request, reply, 403, {
        ...form,
        error: localeFor(request).t('web.signIn.error.formExpired'),
      });
    }
    return cookieToken;
  }

  /** A failed attempt (already counted by `admit`): the form again with `error`. */
  function refuse(
    request: FastifyRequest,
    reply: FastifyReply,
    form: SignInForm,
    error: string,
  ): FastifyReply {
    return renderForm(request, reply, 401, { ...form, error });
  }

  /** A sign-in that worked: its attempt is given back to the address, and the session opened. */
  function succeeded(
    request: FastifyRequest,
    reply: FastifyReply,
    grant: SessionGrant,
    next: string | null,
  ): Promise<FastifyReply> {
    limiter.giveBack(request.ip);
    return finish(request, reply, grant, next);
  }

  async function finish(
    request: FastifyRequest,
    reply: FastifyReply,
    grant: SessionGrant,
    next: string | null,
  ): Promise<FastifyReply> {
    // A new session every time: a session id known before signing in is never the signed-in one.
    const previous = sessionOf(request);
    if (previous !== null) await closeSession(deps.store, previous);
    const { token, maxAgeSeconds } = await openSession(deps.store, grant, deps.now());
    setCookie(reply, secure(), sessionCookieName(secure()), token, maxAgeSeconds);
    clearCookie(reply, secure(), signInCookieName(secure()));
    return seeOther(reply, next ?? '/queue');
  }

  scope.get('/sign-in', (request, reply) => {
    const next = localPath(queryParam(request, 'next'));
    if (sessionOf(request) !== null) return seeOther(reply, next ?? '/queue');
    const noticeKey = NOTICES[queryParam(request, 'notice') ?? ''];
    const notice = noticeKey === undefined ? undefined : localeFor(request).t(noticeKey);
    return renderForm(request, reply, 200, { next, notice });
  });

  scope.post('/sign-in', async (request, reply) => {
    const next = localPath(field(formOf(request), 'next'));
    const admitted = admit(request, reply, { next });
    if (typeof admitted !== 'string') return admitted;
    const key = field(formOf(request), 'key')?.trim() ?? '';
    const auth = key === '' ? null : await authenticate(deps.store, key);
    if (auth === null) {
      const error = localeFor(request).t(key === '' ? 'web.signIn.error.noKey' : 'web.signIn.error.badKey');
      return refuse(request, reply, { next }, error);
    }
    return succeeded(request, reply, auth, next);
  });

  scope.post('/sign-in/password', async (request, reply) => {
    const form = formOf(request);
    const identifier = (field(form, 'identifier') ?? '').slice(0, 400);
    const state: SignInForm = { next: localPath(field(form, 'next')), identifier };
    const admitted = admit(request, reply, state);
    if (typeof admitted !== 'string') return admitted;
    const password = field(form, 'password') ?? '';
    if (identifier.trim() === '' || password === '') {
      return refuse(request, reply, state, localeFor(request).t('web.signIn.error.noPassword'));
    }
    const signedIn = await signInWithPassword(deps.store, identifier, password, deps.now(), holds);
    if (signedIn === null) {
      return refuse(request, reply, state, localeFor(request).t('web.signIn.error.passwordRefused'));
    }
    if ('heldSeconds' in signedIn) {
      // No password was checked: the address keeps its attempt for its keys and passkeys.
      limiter.giveBack(request.ip);
      reply.header('retry-after', String(signedIn.heldSeconds));
      return renderForm(request, reply, 429, {
        ...state,
        error: heldMessage(localeFor(request), signedIn.heldSeconds),
      });
    }
    return succeeded(request, reply, signedIn, state.next);
  });

  /** The options for navigator.credentials.get(), as JSON for the page's script. */
  scope.post('/sign-in/passkey/options', async (request, reply) => {
    const json = (status: number, body: unknown): FastifyReply =>
      reply
        .code(status)
        .headers(SECURITY_HEADERS)
        .header('cache-control', 'no-store')
        .header('content-type', 'application/json; charset=utf-8')
        .send(JSON.stringify(body));
    const wait = limiter.retryAfter(request.ip);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      return json(429, { code: 'too_many_sign_ins', message: tooManyMessage(localeFor(request), wait) });
    }
    // Each answer keeps a challenge (a row) for minutes: an address may ask for a few a minute.
    const asked = optionsLimiter.reserve(request.ip);
    if (asked > 0) {
      reply.header('retry-after', String(asked));
      const message = localeFor(request).t('web.signIn.error.tooManyPasskey', { seconds: asked });
      return json(429, { code: 'too_many_requests', message });
    }
    const cookieToken = checkedFormToken(
      request,
      signInCookieName(secure()),
      field(formOf(request), '_csrf'),
    );
    if (cookieToken === null) {
      return json(403, {
        code: 'form_expired',
        message: localeFor(request).t('web.signIn.error.passkeyFormExpired'),
      });
    }
    const rp = relyingParty(deps.config.baseUrl);
    return json(200, await passkeySignInOptions(deps.store, { binding: cookieToken, rp }, deps.now()));
  });

  scope.post('/sign-in/passkey', async (request, reply) => {
    const form = formOf(request);
    const state: SignInForm = { next: localPath(field(form, 'next')) };
    const admitted = admit(request, reply, state);
    if (typeof admitted !== 'string') return admitted;
    const signedIn = await signInWithPasskey(
      deps.store,
      { binding: admitted, rp: relyingParty(deps.config.baseUrl), response: field(form, 'credential') },
      deps.now(),
    );
    if (signedIn === null) {
      const error = localeFor(request).t('web.signIn.error.passkeyRefused');
      return refuse(request, reply, state, error);
    }
    return succeeded(request, reply, signedIn, state.next);
  });

  scope.post('/sign-out', async (request, reply) => {
    const session = sessionOf(request);
    if (session !== null) {
      const presented = field(formOf(request), '_csrf');
      // Without its token, sign-out is refused like any other form (a page elsewhere must not sign you out).
      if (presented === undefined || !tokensMatch(presented, session.csrfToken)) {
        return seeOther(reply, '/queue');
      }
      await closeSession(deps.store, session);
    }
    clearCookie(reply, secure(), sessionCookieName(secure()));
    return seeOther(reply, '/sign-in?notice=signed_out');
  });
}
