import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  accountsOverview,
  disableAccount,
  enableAccount,
  setAdministrator,
} from '../../../accounts/admin.js';
import {
  DEFAULT_INVITATION_DAYS,
  invitationUrl,
  inviteAccount,
  openInvitations,
  revokeInvitation,
} from '../../../accounts/invitations.js';
import { createAccountWithKey, showAccount } from '../../../accounts/service.js';
import type { Session as WebSession } from '../../../accounts/sessions.js';
import {
  type WebDeps,
  WebError,
  checkCsrf,
  field,
  formOf,
  idParam,
  localeFor,
  queryParam,
  requireSession,
  sendPage,
  seeOther,
  viewerOf,
} from '../context.js';
import { webRefusal } from '../errors.js';
import { type MessageKey, localeOf } from '../../../i18n/locale.js';
import type { SafeHtml } from '../html.js';
import { type AccountsView, accountsPage } from './accountsView.js';

/** What a non-administrator (or anyone, for an unknown account) is told: the page does not exist for them. */
const notHere = (request: FastifyRequest): string => localeFor(request).t('web.accounts.notHere');

const NOTICES = {
  disabled: 'web.accounts.notice.disabled',
  enabled: 'web.accounts.notice.enabled',
  promoted: 'web.accounts.notice.promoted',
  demoted: 'web.accounts.notice.demoted',
  revoked: 'web.accounts.notice.revoked',
} as const satisfies Record<string, MessageKey>;

const noticeOf = (request: FastifyRequest): string | undefined => {
  const name = queryParam(request, 'notice') ?? '';
  return Object.hasOwn(NOTICES, name)
    ? localeFor(request).t(NOTICES[name as keyof typeof NOTICES])
    : undefined;
};

/**
 * The session of an administrator, or a 404 for anyone else: the page's existence is not shown to a
 * person who may not use it. The session says whether its account is an administrator as it is now.
 */
function requireAdmin(request: FastifyRequest): WebSession {
  const session = requireSession(request);
  if (!session.isAdmin) throw new WebError(404, notHere(request));
  return session;
}

/** Accounts (administrators only): list, create, invite, withdraw an invitation, disable, enable, promote. */
export function registerAccounts(scope: FastifyInstance, deps: WebDeps): void {
  async function view(session: WebSession, extra: Partial<AccountsView>): Promise<SafeHtml> {
    const viewer = viewerOf(session);
    const own = await showAccount(deps.store, session.accountId);
    if (viewer === null || own === null) {
      throw new WebError(404, localeOf(session.language).t('web.accounts.gone'));
    }
    const now = deps.now();
    const [accounts, invitations] = await Promise.all([
      accountsOverview(deps.store),
      openInvitations(deps.store, now),
    ]);
    return accountsPage({
      viewer,
      self: session.accountId,
      zone: own.timezone,
      now,
      accounts,
      invitations,
      ...extra,
    });
  }

  /** A refused form: the page again with the reason, or the error rethrown when it is not a refusal. */
  async function refused(reply: FastifyReply, session: WebSession, err: unknown): Promise<FastifyReply> {
    const refusal = webRefusal(err, deps.config, viewerOf(session)?.locale);
    if (refusal === null) throw err;
    return sendPage(reply, refusal.status, await view(session, { error: refusal.message }));
  }

  scope.get('/accounts', async (request, reply) => {
    const session = requireAdmin(request);
    return sendPage(reply, 200, await view(session, { notice: noticeOf(request) }));
  });

  scope.post('/accounts', async (request, reply) => {
    const session = requireAdmin(request);
    checkCsrf(request, session);
    const form = formOf(request);
    const input = {
      name: field(form, 'name') ?? '',
      email: field(form, 'email'),
      timezone: (field(form, 'timezone') ?? '').trim() || 'UTC',
      admin: field(form, 'admin') === 'on',
    };
    let created;
    try {
      created = await createAccountWithKey(deps.store, input);
    } catch (err) {
      return await refused(reply, session, err);
    }
    // Shown in this answer only (never in a URL, never stored): the page is not cached.
    const shown = { name: created.account.name, id: created.account.id, apiKey: created.apiKey };
    return sendPage(reply, 200, await view(session, { createdAccount: shown }));
  });

  scope.post('/accounts/invitations', async (request, reply) => {
    const session = requireAdmin(request);
    checkCsrf(request, session);
    const form = formOf(request);
    const days = Number(field(form, 'days') ?? DEFAULT_INVITATION_DAYS);
    let invited;
    try {
      invited = await inviteAccount(
        deps.store,
        session.accountId,
        { days, note: field(form, 'note'), email: field(form, 'email') },
        deps.now(),
      );
    } catch (err) {
      return await refused(reply, session, err);
    }
    const url = invitationUrl(deps.config.baseUrl, invited.token);
    return sendPage(
      reply,
      200,
      await view(session, { createdInvitation: { url, invitation: invited.invitation } }),
    );
  });

  scope.post('/accounts/invitations/:id/revoke', async (request, reply) => {
    const session = requireAdmin(request);
    checkCsrf(request, session);
    const id = idParam(request);
    if (id === null || !(await revokeInvitation(deps.store, id))) {
      throw new WebError(404, localeFor(request).t('web.accounts.noInvitation'));
    }
    return seeOther(reply, '/accounts?notice=revoked');
  });

  const change = (
    path: string,
    act: (session: WebSession, id: number, form: URLSearchParams) => Promise<string>,
  ): void => {
    scope.post(`/accounts/:id/${path}`, async (request, reply) => {
      const session = requireAdmin(request);
      checkCsrf(request, session);
      const id = idParam(request);
      if (id === null) throw new WebError(404, notHere(request));
      let notice: string;
      try {
        notice = await act(session, id, formOf(request));
      } catch (err) {
        return await refused(reply, session, err);
      }
      return seeOther(reply, `/accounts?notice=${notice}`);
    });
  };
  change('disable', async (s, id) => {
    await disableAccount(deps.store, id, { by: s.accountId, now: deps.now() });
    return 'disabled';
  });
  change('enable', async (_s, id) => {
    await enableAccount(deps.store, id, deps.now());
    return 'enabled';
  });
  change('admin', async (s, id, form) => {
    const admin = field(form, 'admin') === 'on';
    await setAdministrator(deps.store, id, admin, { by: s.accountId });
    return admin ? 'promoted' : 'demoted';
  });
}
