import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate } from '../../../accounts/authorize.js';
import { SESSION_DAYS, closeSession, openSession, randomToken } from '../../../accounts/sessions.js';
import {
  type WebDeps,
  field,
  formOf,
  localPath,
  queryParam,
  sendPage,
  seeOther,
  sessionOf,
} from '../context.js';
import { type SafeHtml, html } from '../html.js';
import { page } from '../layout.js';
import {
  clearCookie,
  isSecure,
  readCookie,
  sessionCookieName,
  setCookie,
  signInCookieName,
  tokensMatch,
} from '../session.js';

const NOTICES: Record<string, string> = {
  signed_out: 'You are signed out.',
  ended: 'Your session has ended. Sign in again to go on.',
  revoked: 'You revoked the key this browser signed in with, so it is signed out. Sign in with another key.',
  deleted: 'Your account is deleted, with everything in it.',
};

/** The sign-in form's token lives this long (an open tab can still sign in after a lunch break). */
const FORM_TOKEN_SECONDS = 12 * 60 * 60;

interface Form {
  next: string | null;
  notice?: string | undefined;
  error?: string | undefined;
}

/**
 * Sign in with an API key; sign out. The sign-in form has no session to bind a CSRF token to, so it uses
 * a double-submit token: a random value in an HttpOnly cookie and in the form, which must match (a page
 * on another site can neither read the cookie nor set it). Failed attempts are limited per address.
 */
export function registerSignIn(scope: FastifyInstance, deps: WebDeps): void {
  const secure = (): boolean => isSecure(deps.config.baseUrl);

  function renderForm(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    form: Form,
  ): FastifyReply {
    const name = signInCookieName(secure());
    const existing = readCookie(request, name);
    const token = existing !== undefined && /^[A-Za-z0-9_-]{43}$/.test(existing) ? existing : randomToken();
    setCookie(reply, secure(), name, token, FORM_TOKEN_SECONDS);
    return sendPage(reply, status, signInPage(token, form));
  }

  scope.get('/sign-in', (request, reply) => {
    const next = localPath(queryParam(request, 'next'));
    if (sessionOf(request) !== null) return seeOther(reply, next ?? '/queue');
    const notice = NOTICES[queryParam(request, 'notice') ?? ''];
    return renderForm(request, reply, 200, { next, notice });
  });

  scope.post('/sign-in', async (request, reply) => {
    const form = formOf(request);
    const next = localPath(field(form, 'next'));
    const limiter = deps.signInLimiter;
    const tooMany = (seconds: number): FastifyReply => {
      reply.header('retry-after', String(seconds));
      const minutes = Math.ceil(seconds / 60);
      const error = `Too many failed sign-ins from your network. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
      return renderForm(request, reply, 429, { next, error });
    };

    const wait = limiter.retryAfter(request.ip);
    if (wait > 0) return tooMany(wait);

    const cookieToken = readCookie(request, signInCookieName(secure()));
    const formToken = field(form, '_csrf');
    if (cookieToken === undefined || formToken === undefined || !tokensMatch(formToken, cookieToken)) {
      const error = 'The sign-in form had expired. It is fresh again now: paste your key once more.';
      return renderForm(request, reply, 403, { next, error });
    }

    const key = field(form, 'key')?.trim() ?? '';
    const auth = key === '' ? null : await authenticate(deps.store, key);
    if (auth === null) {
      const seconds = limiter.recordFailure(request.ip);
      if (seconds > 0) return tooMany(seconds);
      const error =
        key === ''
          ? 'Paste one of your API keys (it starts with tdg_).'
          : 'That key is not valid. Check that you copied all of it (it starts with tdg_ and is 80 characters long); a revoked key no longer works.';
      return renderForm(request, reply, 401, { next, error });
    }

    // A new session every time: a session id known before signing in is never the signed-in one.
    const previous = sessionOf(request);
    if (previous !== null) await closeSession(deps.store, previous);
    const { token, maxAgeSeconds } = await openSession(deps.store, auth, deps.now());
    setCookie(reply, secure(), sessionCookieName(secure()), token, maxAgeSeconds);
    clearCookie(reply, secure(), signInCookieName(secure()));
    return seeOther(reply, next ?? '/queue');
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

function signInPage(token: string, form: Form): SafeHtml {
  return page({
    title: 'Sign in',
    viewer: null,
    body: html`<h1>Sign in</h1>
      ${form.notice === undefined ? null : html`<p class="notice" role="status">${form.notice}</p>`}
      ${form.error === undefined ? null : html`<p class="error" role="alert" id="sign-in-error">${form.error}</p>`}
      <form class="stack" method="post" action="/sign-in">
        <input type="hidden" name="_csrf" value="${token}" />
        ${form.next === null ? null : html`<input type="hidden" name="next" value="${form.next}" />`}
        <div>
          <label for="key">API key</label>
          <input
            id="key"
            name="key"
            type="password"
            required
            autocomplete="current-password"
            spellcheck="false"
            autocapitalize="off"
            aria-describedby="key-hint${form.error === undefined ? '' : ' sign-in-error'}"
          />
          <p class="hint" id="key-hint">
            Any of your keys works: the one printed when Tidings first started, or one made with
            <code>tidings key create</code>.
          </p>
        </div>
        <div><button type="submit">Sign in</button></div>
      </form>
      <p class="muted">
        This browser then stays signed in until you sign out, until ${SESSION_DAYS} days pass without a visit,
        or until the key you used is revoked.
      </p>`,
  });
}
