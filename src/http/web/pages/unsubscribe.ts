import { type Locale, localeOf } from '../../../i18n/locale.js';
import { readerSettings } from '../../../accounts/digestActions.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  type EmailAction,
  type EmailState,
  changeEmailDelivery,
  emailStateOf,
  resetUnsubscribeLinks,
  unsubscribeReader,
} from '../../../accounts/unsubscribe.js';
import {
  type WebDeps,
  WebError,
  checkCsrf,
  field,
  formOf,
  requireSession,
  sendPage,
  seeOther,
  localeFor,
} from '../context.js';
import { emailPaused } from '../../../digest/unsubscribe.js';
import type { Account } from '../../../store/accounts.js';
import { type SafeHtml, html, markup } from '../html.js';
import { type Viewer, csrfField, page } from '../layout.js';
import { BODY_LIMIT, message, momentIn, notFound } from './actionPage.js';

/**
 * The private unsubscribe page of a digest email (RFC 8058), open without signing in: the token in the
 * path is the authorisation (digest/unsubscribe.ts), so it shows only whether "your Tidings digest emails"
 * are on, off or paused — no name, no address — and an unknown or revoked token gets the same 404 as any
 * address that is not a page.
 *
 * GET never changes anything (mail scanners and link previews fetch links). POST changes: with the body
 * `List-Unsubscribe=One-Click` (what a mail provider's own Unsubscribe button sends, without cookies) or
 * with no action at all, it turns the emails off; the page's buttons POST `action=off|pause|resume`. These
 * are the web app's only forms without a CSRF token, and need none: a forged request would have to
 * carry the secret token, and whoever has it may do exactly this anyway (the same as clicking it). The
 * session cookie, if any, is not read for it.
 */
export function registerUnsubscribe(scope: FastifyInstance, deps: WebDeps): void {
  const reader = async (request: FastifyRequest) => {
    const token = (request.params as { token?: string }).token ?? '';
    const accountId = await unsubscribeReader(deps.store, token, deps.now());
    if (accountId === null) throw new WebError(404, notFound(localeFor(request)));
    // The token names the account: its page is in the account's language, whatever browser opens it.
    const { language } = await readerSettings(deps.store, accountId);
    return { accountId, action: `/unsubscribe/${token}`, locale: localeOf(language) };
  };

  scope.get('/unsubscribe/:token', async (request, reply) => {
    const { accountId, action, locale } = await reader(request);
    const state = await emailStateOf(deps.store, accountId, deps.now());
    if (state === null) throw new WebError(404, notFound(locale));
    return sendPage(reply, 200, unsubscribePage(locale, action, state, null));
  });

  scope.post('/unsubscribe/:token', { bodyLimit: BODY_LIMIT }, async (request, reply) => {
    const { accountId, action, locale } = await reader(request);
    const chosen = actionOf(formOf(request));
    if (chosen === null) throw new WebError(400, locale.t('web.unsubscribe.cannotDo'));
    const state = await changeEmailDelivery(deps.store, accountId, chosen, deps.now());
    if (state === null) throw new WebError(404, notFound(locale));
    request.log.info({ action: chosen }, 'digest email changed through an unsubscribe link');
    return sendPage(reply, 200, unsubscribePage(locale, action, state, chosen));
  });

  // Settings' "Resume emails now" and "Reset unsubscribe links": signed-in forms like any other.
  scope.post('/settings/resume-email', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const state = await changeEmailDelivery(deps.store, session.accountId, 'resume', deps.now());
    if (state === null) throw new WebError(404, localeFor(request).t('web.unsubscribe.accountGone'));
    return seeOther(reply, '/settings?notice=saved');
  });

  scope.post('/settings/reset-unsubscribe', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    await resetUnsubscribeLinks(deps.store, session.accountId);
    return seeOther(reply, '/settings?notice=unsubscribe_reset');
  });
}

/** What a POST asks for: RFC 8058's one-click body (or an empty one) is "off". */
function actionOf(form: URLSearchParams): EmailAction | null {
  const action = field(form, 'action');
  if (action === undefined) return form.has('action') ? null : 'off';
  return action === 'off' || action === 'pause' || action === 'resume' ? action : null;
}

const DONE = {
  off: 'web.unsubscribe.done.off',
  pause: 'web.unsubscribe.done.pause',
  resume: 'web.unsubscribe.done.resume',
} as const satisfies Record<EmailAction, string>;

function unsubscribePage(
  locale: Locale,
  action: string,
  state: EmailState,
  done: EmailAction | null,
): SafeHtml {
  const { strong, strongNames: marks } = markup;
  const now =
    state.status === 'off'
      ? message(locale, 'web.unsubscribe.state.off', strong, marks)
      : state.status === 'paused'
        ? message(
            locale,
            'web.unsubscribe.state.paused',
            {
              ...strong,
              until: html`<time datetime="${state.until}"
                >${locale.t('web.unsubscribe.utc', { time: momentIn(locale, state.until, 'UTC') })}</time
              >`.value,
            },
            [...marks, 'until'],
          )
        : message(locale, 'web.unsubscribe.state.on', strong, marks);
  const button = (value: EmailAction, label: string, kind: string | null) =>
    html`<form class="inline" method="post" action="${action}">
      <input type="hidden" name="action" value="${value}" />
      <button type="submit" ${kind === null ? null : html`class="${kind}"`}>${label}</button>
    </form>`;
  const title = locale.t('web.unsubscribe.title');
  return page({
    locale,
    title,
    viewer: null,
    body: html`<h1>${title}</h1>
      ${done === null ? null : html`<p class="notice" role="status">${locale.t(DONE[done])}</p>`}
      <p>${now}</p>
      <p>${locale.t('web.unsubscribe.still')}</p>
      <div class="row">
        ${state.status === 'off' ? null : button('off', locale.t('web.unsubscribe.button.off'), null)}
        ${state.status === 'paused' ? null : button('pause', locale.t('web.unsubscribe.button.pause'), 'quiet')}
        ${state.status === 'on' ? null : button('resume', locale.t('web.unsubscribe.button.resume'), 'quiet')}
      </div>
      <p class="hint">
        ${message(locale, 'web.unsubscribe.hint', markup.link('/settings'), markup.linkNames)}
      </p>`,
  });
}

/**
 * Under the settings form: a pause set from an email (and a way to end it now), and "Reset unsubscribe
 * links", which revokes the e-mail's action links too. In the reader's language (the viewer's).
 */
export function emailControls(viewer: Viewer, account: Account, now: Date): SafeHtml {
  const { locale } = viewer;
  const paused = emailPaused(account, now) ? account.email_paused_until : null;
  return html`${
      paused === null
        ? null
        : html`<form class="stack" method="post" action="/settings/resume-email">
            ${csrfField(viewer)}
            <p id="paused-hint">
              ${locale.t('web.unsubscribe.controls.paused', { until: momentIn(locale, paused, account.timezone) })}
            </p>
            <div>
              <button class="quiet" type="submit" aria-describedby="paused-hint">
                ${locale.t('web.unsubscribe.controls.resume')}
              </button>
            </div>
          </form>`
    }
    <form class="stack" method="post" action="/settings/reset-unsubscribe">
      ${csrfField(viewer)}
      <p>${locale.t('web.unsubscribe.controls.links')}</p>
      <div>
        <button class="quiet" type="submit">${locale.t('web.unsubscribe.controls.reset')}</button>
      </div>
    </form>`;
}
