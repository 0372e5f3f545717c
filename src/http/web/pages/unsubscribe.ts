import type { Locale } from '../../../i18n/locale.js';
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
import { type SafeHtml, html } from '../html.js';
import { type Viewer, csrfField, page } from '../layout.js';
import { localTime } from '../time.js';

/** An unsubscribe POST carries a word or two: anything larger is refused before it is read. */
const BODY_LIMIT = 4096;

const NOT_FOUND = 'There is no page at this address. It may have moved, or the link may be mistyped.';

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
    if (accountId === null) throw new WebError(404, NOT_FOUND);
    return { accountId, action: `/unsubscribe/${token}` };
  };

  scope.get('/unsubscribe/:token', async (request, reply) => {
    const { accountId, action } = await reader(request);
    const state = await emailStateOf(deps.store, accountId, deps.now());
    if (state === null) throw new WebError(404, NOT_FOUND);
    return sendPage(reply, 200, unsubscribePage(localeFor(request), action, state, null));
  });

  scope.post('/unsubscribe/:token', { bodyLimit: BODY_LIMIT }, async (request, reply) => {
    const { accountId, action } = await reader(request);
    const chosen = actionOf(formOf(request));
    if (chosen === null) {
      throw new WebError(400, 'That is not something this page can do. Go back and choose a button.');
    }
    const state = await changeEmailDelivery(deps.store, accountId, chosen, deps.now());
    if (state === null) throw new WebError(404, NOT_FOUND);
    request.log.info({ action: chosen }, 'digest email changed through an unsubscribe link');
    return sendPage(reply, 200, unsubscribePage(localeFor(request), action, state, chosen));
  });

  // Settings' "Resume emails now" and "Reset unsubscribe links": signed-in forms like any other.
  scope.post('/settings/resume-email', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const state = await changeEmailDelivery(deps.store, session.accountId, 'resume', deps.now());
    if (state === null) throw new WebError(404, 'This account no longer exists.');
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

const DONE: Record<EmailAction, string> = {
  off: 'Done: you are unsubscribed.',
  pause: 'Done: paused for a week.',
  resume: 'Done: your digest emails are on again.',
};

function unsubscribePage(
  locale: Locale,
  action: string,
  state: EmailState,
  done: EmailAction | null,
): SafeHtml {
  const now =
    state.status === 'off'
      ? html`Your Tidings digest emails are <strong>off</strong>.`
      : state.status === 'paused'
        ? html`Your Tidings digest emails are <strong>paused</strong> until
            <time datetime="${state.until}">${localTime(state.until, 'UTC')} UTC</time>; then they start
            again.`
        : html`Your Tidings digest emails are <strong>on</strong>.`;
  const button = (value: EmailAction, label: string, kind: string | null) =>
    html`<form class="inline" method="post" action="${action}">
      <input type="hidden" name="action" value="${value}" />
      <button type="submit" ${kind === null ? null : html`class="${kind}"`}>${label}</button>
    </form>`;
  return page({
    locale,
    title: 'Digest emails',
    viewer: null,
    body: html`<h1>Digest emails</h1>
      ${done === null ? null : html`<p class="notice" role="status">${DONE[done]}</p>`}
      <p>${now}</p>
      <p>
        Your digests are still made each day and can be read on the web when you sign in; this only decides
        whether they are emailed.
      </p>
      <div class="row">
        ${state.status === 'off' ? null : button('off', 'Unsubscribe', null)}
        ${state.status === 'paused' ? null : button('pause', 'Pause for a week', 'quiet')}
        ${state.status === 'on' ? null : button('resume', 'Resume emails', 'quiet')}
      </div>
      <p class="hint">Change when digests come, and more, in <a href="/settings">Settings</a>.</p>`,
  });
}

/**
 * Under the settings form: a pause set from an email (and a way to end it now), and "Reset unsubscribe
 * links", which revokes the e-mail's action links too.
 */
export function emailControls(viewer: Viewer, account: Account, now: Date): SafeHtml {
  const paused = emailPaused(account, now) ? account.email_paused_until : null;
  return html`${
      paused === null
        ? null
        : html`<form class="stack" method="post" action="/settings/resume-email">
            ${csrfField(viewer)}
            <p id="paused-hint">
              Your digest emails are paused from an unsubscribe link until
              ${localTime(paused, account.timezone)}; saving the settings above does not change that.
            </p>
            <div>
              <button class="quiet" type="submit" aria-describedby="paused-hint">Resume emails now</button>
            </div>
          </form>`
    }
    <form class="stack" method="post" action="/settings/reset-unsubscribe">
      ${csrfField(viewer)}
      <p>
        Each email has private links that work without signing in: to unsubscribe, and its actions (keep for
        tomorrow, fewer or more from a feed, mute it for a week). If you forwarded an email, reset these
        e-mail links: those of emails already sent stop working.
      </p>
      <div><button class="quiet" type="submit">Reset unsubscribe links</button></div>
    </form>`;
}
