import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { deleteAccountPasskey, listPasskeys, renameAccountPasskey } from '../../../accounts/passkeyList.js';
import {
  type PasskeyAdded,
  addPasskey,
  passkeyRegistrationOptions,
  relyingParty,
} from '../../../accounts/passkeys.js';
import {
  type PasswordChange,
  passwordStatus,
  removeAccountPassword,
  setAccountPassword,
} from '../../../accounts/passwords.js';
import { showAccount } from '../../../accounts/service.js';
import type { Session as WebSession } from '../../../accounts/sessions.js';
import {
  SECURITY_HEADERS,
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
  localeFor,
} from '../context.js';
import { ENGLISH } from '../../../i18n/locale.js';
import type { LabelKey } from '../localeTime.js';
import { webRefusal } from '../errors.js';
import { PASSKEY_PAGE_HEADERS } from '../passkeyScript.js';
import { clearCookie, isSecure, sessionCookieName } from '../session.js';
import { signInSettingsPage } from './signInSettingsPage.js';

const PATH = '/settings/sign-in';

const NOTICES: Record<string, LabelKey> = {
  password_set: 'web.signIn.settings.notice.passwordSet',
  password_removed: 'web.signIn.settings.notice.passwordRemoved',
  passkey_added: 'web.signIn.settings.notice.passkeyAdded',
  passkey_renamed: 'web.signIn.settings.notice.passkeyRenamed',
  passkey_deleted: 'web.signIn.settings.notice.passkeyDeleted',
};

const PASSKEY_FAILED: Record<'invalid' | 'expired' | 'duplicate', LabelKey> = {
  invalid: 'web.signIn.settings.error.passkeyInvalid',
  expired: 'web.signIn.settings.error.passkeyExpired',
  duplicate: 'web.signIn.settings.error.passkeyDuplicate',
};

/** Settings, Sign-in: the password and the passkeys of the signed-in account. */
export function registerSignInSettings(scope: FastifyInstance, deps: WebDeps): void {
  const limiter = deps.signInLimiter;

  async function show(
    reply: FastifyReply,
    session: WebSession,
    status: number,
    extra: { notice?: string | undefined; error?: string | undefined },
  ): Promise<FastifyReply> {
    const account = await showAccount(deps.store, session.accountId);
    const viewer = viewerOf(session);
    if (account === null || viewer === null)
      throw new WebError(404, (viewer?.locale ?? ENGLISH).t('web.settings.gone'));
    const body = signInSettingsPage({
      viewer,
      session,
      passwordSetAt: (await passwordStatus(deps.store, session.accountId)).setAt,
      passkeys: await listPasskeys(deps.store, session.accountId),
      zone: account.timezone,
      now: deps.now(),
      rp: relyingParty(deps.config.baseUrl),
      ...extra,
    });
    return sendPage(reply, status, body, PASSKEY_PAGE_HEADERS);
  }

  /** A refused form: a domain error's words on the page, or a bug rethrown. */
  async function refused(reply: FastifyReply, session: WebSession, err: unknown): Promise<FastifyReply> {
    const refusal = webRefusal(err, deps.config, viewerOf(session)?.locale);
    if (refusal === null) throw err;
    return show(reply, session, refusal.status, { error: refusal.message });
  }

  /**
   * Changing the password needs the current one: each try counts as a sign-in attempt of the address,
   * counted before the password is checked (so that tries sent at once cannot pass the limit) and given
   * back when it was right or nothing was checked.
   */
  async function withCurrentPassword(
    request: FastifyRequest,
    reply: FastifyReply,
    session: WebSession,
    change: () => Promise<PasswordChange>,
    done: string,
  ): Promise<FastifyReply> {
    const wait = limiter.reserve(request.ip);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      const error = localeFor(request).t('web.signIn.settings.error.tooMany');
      return show(reply, session, 429, { error });
    }
    let outcome: PasswordChange;
    try {
      outcome = await change();
    } catch (err) {
      limiter.giveBack(request.ip);
      return refused(reply, session, err);
    }
    if (outcome === 'wrong_password') {
      return show(reply, session, 403, {
        error: localeFor(request).t('web.signIn.settings.error.wrongPassword'),
      });
    }
    limiter.giveBack(request.ip);
    return seeOther(reply, `${PATH}?notice=${done}`);
  }

  scope.get(PATH, async (request, reply) => {
    const session = requireSession(request);
    const notice = NOTICES[queryParam(request, 'notice') ?? ''];
    return show(reply, session, 200, {
      notice: notice === undefined ? undefined : localeFor(request).t(notice),
    });
  });

  scope.post(`${PATH}/password`, async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const form = formOf(request);
    const next = field(form, 'password') ?? '';
    if (next !== (field(form, 'confirm') ?? '')) {
      return show(reply, session, 400, {
        error: localeFor(request).t('web.signIn.settings.error.notSame'),
      });
    }
    const current = field(form, 'current') ?? null;
    return withCurrentPassword(
      request,
      reply,
      session,
      () =>
        setAccountPassword(
          deps.store,
          session.accountId,
          { current, next, keepSessionId: session.id },
          deps.now(),
        ),
      'password_set',
    );
  });

  scope.post(`${PATH}/password/remove`, async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const current = field(formOf(request), 'current') ?? null;
    return withCurrentPassword(
      request,
      reply,
      session,
      () =>
        removeAccountPassword(
          deps.store,
          session.accountId,
          { current, keepSessionId: session.id },
          deps.now(),
        ),
      'password_removed',
    );
  });

  /** The options for navigator.credentials.create(), as JSON for the page's script. */
  scope.post(`${PATH}/passkeys/options`, async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const options = await passkeyRegistrationOptions(
      deps.store,
      session.accountId,
      { binding: session.id, userName: session.accountName, rp: relyingParty(deps.config.baseUrl) },
      deps.now(),
    );
    return reply
      .headers(SECURITY_HEADERS)
      .header('cache-control', 'no-store')
      .header('content-type', 'application/json; charset=utf-8')
      .send(JSON.stringify(options));
  });

  scope.post(`${PATH}/passkeys`, async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const form = formOf(request);
    let outcome: PasskeyAdded;
    try {
      outcome = await addPasskey(
        deps.store,
        session.accountId,
        {
          binding: session.id,
          rp: relyingParty(deps.config.baseUrl),
          response: field(form, 'credential'),
          name: field(form, 'name'),
        },
        deps.now(),
      );
    } catch (err) {
      return refused(reply, session, err);
    }
    if (outcome !== 'added') {
      return show(reply, session, 400, { error: localeFor(request).t(PASSKEY_FAILED[outcome]) });
    }
    return seeOther(reply, `${PATH}?notice=passkey_added`);
  });

  scope.post(`${PATH}/passkeys/:id/rename`, async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    let renamed: boolean;
    try {
      renamed =
        id !== null &&
        (await renameAccountPasskey(deps.store, session.accountId, id, field(formOf(request), 'name') ?? ''));
    } catch (err) {
      return refused(reply, session, err);
    }
    if (!renamed) throw new WebError(404, localeFor(request).t('web.signIn.settings.error.notYoursRename'));
    return seeOther(reply, `${PATH}?notice=passkey_renamed`);
  });

  scope.post(`${PATH}/passkeys/:id/delete`, async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const id = idParam(request);
    const deleted = id !== null && (await deleteAccountPasskey(deps.store, session.accountId, id));
    if (!deleted) throw new WebError(404, localeFor(request).t('web.signIn.settings.error.notYoursDelete'));
    if (id === session.passkeyId) {
      // This browser signed in with it: its session went with the passkey.
      const secure = isSecure(deps.config.baseUrl);
      clearCookie(reply, secure, sessionCookieName(secure));
      return seeOther(reply, '/sign-in?notice=passkey_deleted');
    }
    return seeOther(reply, `${PATH}?notice=passkey_deleted`);
  });
}
