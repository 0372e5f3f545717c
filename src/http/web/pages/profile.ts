import type { FastifyInstance } from 'fastify';
import { deleteOwnAccount } from '../../../accounts/deleteAccount.js';
import { renameOwnAccount } from '../../../accounts/profile.js';
import { showAccount } from '../../../accounts/service.js';
import type { Session as WebSession } from '../../../accounts/sessions.js';
import type { Account } from '../../../store/accounts.js';
import {
  type WebDeps,
  WebError,
  checkCsrf,
  field,
  formOf,
  queryParam,
  requireSession,
  sendPage,
  seeOther,
  viewerOf,
} from '../context.js';
import { webRefusal } from '../errors.js';
import { type SafeHtml, html } from '../html.js';
import { type Viewer, csrfField, page } from '../layout.js';
import { clearCookie, isSecure, sessionCookieName } from '../session.js';

const GONE = 'This account no longer exists.';

interface ProfileView {
  viewer: Viewer;
  account: Account;
  notice?: string | undefined;
  nameError?: string | undefined;
  deleteError?: string | undefined;
  /** What was typed into the name field when it was refused. */
  name?: string | undefined;
}

/** The Settings section that leads here. */
export function accountSection(account: Account): SafeHtml {
  return html`<h2>Your account</h2>
    <p>
      Signed in as <strong>${account.name}</strong>.
      <a href="/settings/account">Change your name, or delete your account</a>
    </p>`;
}

/** Your account: change your name; delete the account with everything in it (confirmed by typing its name). */
export function registerProfile(scope: FastifyInstance, deps: WebDeps): void {
  async function view(
    session: WebSession,
    extra: Omit<ProfileView, 'viewer' | 'account'>,
  ): Promise<SafeHtml> {
    const account = await showAccount(deps.store, session.accountId);
    const viewer = viewerOf(session);
    if (account === null || viewer === null) throw new WebError(404, GONE);
    return profilePage({ viewer, account, ...extra });
  }

  scope.get('/settings/account', async (request, reply) => {
    const session = requireSession(request);
    const notice = queryParam(request, 'notice') === 'renamed' ? 'Your name is changed.' : undefined;
    return sendPage(reply, 200, await view(session, { notice }));
  });

  scope.post('/settings/account/name', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const name = field(formOf(request), 'name') ?? '';
    try {
      if ((await renameOwnAccount(deps.store, session.accountId, name)) === null)
        throw new WebError(404, GONE);
    } catch (err) {
      const refusal = webRefusal(err, deps.config);
      if (refusal === null) throw err;
      return sendPage(reply, refusal.status, await view(session, { nameError: refusal.message, name }));
    }
    return seeOther(reply, '/settings/account?notice=renamed');
  });

  scope.post('/settings/account/delete', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    try {
      await deleteOwnAccount(deps.store, session.accountId, field(formOf(request), 'confirm') ?? '');
    } catch (err) {
      const refusal = webRefusal(err, deps.config);
      if (refusal === null) throw err;
      return sendPage(reply, refusal.status, await view(session, { deleteError: refusal.message }));
    }
    // The session went with the account; the browser forgets its cookie.
    const secure = isSecure(deps.config.baseUrl);
    clearCookie(reply, secure, sessionCookieName(secure));
    return seeOther(reply, '/sign-in?notice=deleted');
  });
}

function profilePage(v: ProfileView): SafeHtml {
  const { account } = v;
  return page({
    title: 'Your account',
    locale: v.viewer.locale,
    viewer: v.viewer,
    current: 'settings',
    body: html`<h1>Your account</h1>
      ${v.notice === undefined ? null : html`<p class="notice" role="status">${v.notice}</p>`}
      <p><a href="/settings">Back to Settings</a> (when your digest comes, your email address).</p>
      <h2 id="name-heading">Your name</h2>
      ${v.nameError === undefined ? null : html`<p class="error" role="alert" id="name-error">${v.nameError}</p>`}
      <form class="row" method="post" action="/settings/account/name" aria-labelledby="name-heading">
        ${csrfField(v.viewer)}
        <div class="grow">
          <label for="account-name">Name</label>
          <input
            id="account-name"
            name="name"
            type="text"
            required
            maxlength="200"
            autocomplete="name"
            value="${v.name ?? account.name}"
            ${v.nameError === undefined ? null : html` aria-invalid="true" aria-describedby="name-error"`}
          />
        </div>
        <button type="submit">Save name</button>
      </form>
      <h2 id="delete-heading">Delete account</h2>
      <p>
        This deletes your account and everything in it, for good: your queue, the feeds you follow, your
        digests, your keys. Every browser signed in to it is signed out.
      </p>
      ${
        account.is_admin
          ? html`<p class="hint">
              You are an administrator: while other accounts exist, another administrator must remain. Make
              someone an administrator on the Accounts page first.
            </p>`
          : null
      }
      ${v.deleteError === undefined ? null : html`<p class="error" role="alert" id="delete-error">${v.deleteError}</p>`}
      <form class="stack" method="post" action="/settings/account/delete" aria-labelledby="delete-heading">
        ${csrfField(v.viewer)}
        <div>
          <label for="delete-confirm">To confirm, type the name of your account: ${account.name}</label>
          <input
            id="delete-confirm"
            name="confirm"
            type="text"
            required
            maxlength="200"
            autocomplete="off"
            spellcheck="false"
            ${v.deleteError === undefined ? null : html` aria-invalid="true" aria-describedby="delete-error"`}
          />
        </div>
        <div><button class="danger" type="submit">Delete my account and everything in it</button></div>
      </form>`,
  });
}
