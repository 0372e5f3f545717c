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
  localeFor,
  queryParam,
  requireSession,
  sendPage,
  seeOther,
  viewerOf,
} from '../context.js';
import { webRefusal } from '../errors.js';
import { SafeHtml, html } from '../html.js';
import type { Locale } from '../../../i18n/locale.js';
import { type Viewer, csrfField, page } from '../layout.js';
import { clearCookie, isSecure, sessionCookieName } from '../session.js';

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
export function accountSection(locale: Locale, account: Account): SafeHtml {
  const name = html`<strong>${account.name}</strong>`.value;
  return html`<h2>${locale.t('web.profile.title')}</h2>
    <p>
      ${new SafeHtml(locale.html('web.profile.signedInAs', { name }, ['name']))}
      <a href="/settings/account">${locale.t('web.profile.changeLink')}</a>
    </p>`;
}

/** Your account: change your name; delete the account with everything in it (confirmed by typing its name). */
export function registerProfile(scope: FastifyInstance, deps: WebDeps): void {
  async function view(
    session: WebSession,
    locale: Locale,
    extra: Omit<ProfileView, 'viewer' | 'account'>,
  ): Promise<SafeHtml> {
    const account = await showAccount(deps.store, session.accountId);
    const viewer = viewerOf(session);
    if (account === null || viewer === null) throw new WebError(404, locale.t('web.profile.gone'));
    return profilePage({ viewer, account, ...extra });
  }

  scope.get('/settings/account', async (request, reply) => {
    const session = requireSession(request);
    const locale = localeFor(request);
    const notice = queryParam(request, 'notice') === 'renamed' ? locale.t('web.profile.renamed') : undefined;
    return sendPage(reply, 200, await view(session, locale, { notice }));
  });

  scope.post('/settings/account/name', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const locale = localeFor(request);
    const name = field(formOf(request), 'name') ?? '';
    try {
      if ((await renameOwnAccount(deps.store, session.accountId, name)) === null)
        throw new WebError(404, locale.t('web.profile.gone'));
    } catch (err) {
      const refusal = webRefusal(err, deps.config, locale);
      if (refusal === null) throw err;
      return sendPage(
        reply,
        refusal.status,
        await view(session, locale, { nameError: refusal.message, name }),
      );
    }
    return seeOther(reply, '/settings/account?notice=renamed');
  });

  scope.post('/settings/account/delete', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const locale = localeFor(request);
    try {
      await deleteOwnAccount(deps.store, session.accountId, field(formOf(request), 'confirm') ?? '');
    } catch (err) {
      const refusal = webRefusal(err, deps.config, locale);
      if (refusal === null) throw err;
      return sendPage(reply, refusal.status, await view(session, locale, { deleteError: refusal.message }));
    }
    // The session went with the account; the browser forgets its cookie.
    const secure = isSecure(deps.config.baseUrl);
    clearCookie(reply, secure, sessionCookieName(secure));
    return seeOther(reply, '/sign-in?notice=deleted');
  });
}

function profilePage(v: ProfileView): SafeHtml {
  const { account } = v;
  const { locale } = v.viewer;
  const back = html`<a href="/settings">${locale.t('web.profile.backLink')}</a>`.value;
  return page({
    title: locale.t('web.profile.title'),
    locale: v.viewer.locale,
    viewer: v.viewer,
    current: 'settings',
    body: html`<h1>${locale.t('web.profile.title')}</h1>
      ${v.notice === undefined ? null : html`<p class="notice" role="status">${v.notice}</p>`}
      <p>${new SafeHtml(locale.html('web.profile.back', { link: back }, ['link']))}</p>
      <h2 id="name-heading">${locale.t('web.profile.nameHeading')}</h2>
      ${v.nameError === undefined ? null : html`<p class="error" role="alert" id="name-error">${v.nameError}</p>`}
      <form class="row" method="post" action="/settings/account/name" aria-labelledby="name-heading">
        ${csrfField(v.viewer)}
        <div class="grow">
          <label for="account-name">${locale.t('web.profile.name')}</label>
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
        <button type="submit">${locale.t('web.profile.saveName')}</button>
      </form>
      <h2 id="delete-heading">${locale.t('web.profile.deleteHeading')}</h2>
      <p>${locale.t('web.profile.deleteExplain')}</p>
      ${account.is_admin ? html`<p class="hint">${locale.t('web.profile.adminHint')}</p>` : null}
      ${v.deleteError === undefined ? null : html`<p class="error" role="alert" id="delete-error">${v.deleteError}</p>`}
      <form class="stack" method="post" action="/settings/account/delete" aria-labelledby="delete-heading">
        ${csrfField(v.viewer)}
        <div>
          <label for="delete-confirm">${locale.t('web.profile.deleteConfirm', { name: account.name })}</label>
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
        <div><button class="danger" type="submit">${locale.t('web.profile.deleteButton')}</button></div>
      </form>`,
  });
}
