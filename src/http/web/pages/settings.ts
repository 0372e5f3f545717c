import type { FastifyInstance } from 'fastify';
import { changeAccountSettings, sendDigestNow } from '../../../accounts/changeSettings.js';
import { archivedDigest, todaysDigest } from '../../../accounts/digests.js';
import { nextDigestOf } from '../../../accounts/profile.js';
import { showAccount } from '../../../accounts/service.js';
import { settingRefusalOf, settingsSchema } from '../../../accounts/settings.js';
import type { Session as WebSession } from '../../../accounts/sessions.js';
import {
  type WebDeps,
  WebError,
  checkCsrf,
  formOf,
  localeFor,
  requireSession,
  sendPage,
  seeOther,
  viewerOf,
} from '../context.js';
import { SafeHtml, html } from '../html.js';
import { nextDigestLine } from './digestNow.js';
import { resurfaceInput } from './resurfaceSettings.js';
import {
  FIELD_LABELS,
  type SettingsError,
  type SettingsForm,
  formFromAccount,
  formFromBody,
  settingsPage,
} from './settingsPage.js';
import { webRefusal } from '../errors.js';
import { settingRefusalWords } from '../refusals.js';
import type { Locale } from '../../../i18n/locale.js';

/** Settings: when the digest comes and how, in which language; "send me a digest now". */
export function registerSettings(scope: FastifyInstance, deps: WebDeps): void {
  async function render(
    session: WebSession,
    locale: Locale,
    extra: { form?: SettingsForm; errors?: SettingsError[]; notice?: SafeHtml },
  ) {
    const account = await showAccount(deps.store, session.accountId);
    const viewer = viewerOf(session);
    if (account === null || viewer === null) throw new WebError(404, locale.t('web.settings.gone'));
    return settingsPage({
      viewer,
      account,
      next: await nextDigestOf(deps.store, account),
      today: await todaysDigest(deps.store, session.accountId, deps.now(), deps.config.baseUrl),
      form: extra.form ?? formFromAccount(account),
      errors: extra.errors ?? [],
      notice: extra.notice,
      emailConfigured: deps.digest().mailer !== null,
      now: deps.now(),
    });
  }

  scope.get('/settings', async (request, reply) => {
    const session = requireSession(request);
    const locale = localeFor(request);
    const notice = await noticeFor(deps, session, locale, request.query as Record<string, unknown>);
    return sendPage(reply, 200, await render(session, locale, { notice }));
  });

  scope.post('/settings', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const locale = localeFor(request);
    const form = formFromBody(formOf(request));
    const errors: SettingsError[] = [];
    if (form.days.size === 0) errors.push({ field: 'days', text: locale.t('web.settings.error.noDays') });
    const parsed = settingsSchema.safeParse({
      timezone: form.timezone,
      time: form.time,
      ...(form.days.size === 0 ? {} : { days: [...form.days].join(',') }),
      maxItems: form.maxItems.trim(),
      email: form.email,
      emailEnabled: String(form.emailEnabled),
      ereaderEmail: form.ereaderEmail,
      skipEmpty: String(form.skipEmpty),
      images: String(form.images),
      cleanLinks: String(form.cleanLinks),
      ...(form.language === null ? {} : { language: form.language }),
      ...resurfaceInput(form),
    });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const key = String(issue.path[0] ?? '');
        const label = FIELD_LABELS[key];
        const field = label === undefined ? key : locale.t(label);
        const refusal = settingRefusalOf(issue);
        errors.push({
          field: key,
          text:
            refusal === undefined
              ? locale.t('web.settings.error.field', { field, problem: issue.message })
              : settingRefusalWords(refusal, field, locale),
        });
      }
    }
    if (errors.length > 0 || !parsed.success) {
      return sendPage(reply, 400, await render(session, locale, { form, errors }));
    }
    let changed;
    try {
      changed = await changeAccountSettings(deps.store, session.accountId, parsed.data, deps.now());
    } catch (err) {
      // Another account's address (email_taken): the form again, with what was typed.
      const refusal = webRefusal(err, deps.config, locale);
      if (refusal === null) throw err;
      return sendPage(
        reply,
        refusal.status,
        await render(session, locale, { form, errors: [{ field: null, text: refusal.message }] }),
      );
    }
    if (changed === null) throw new WebError(404, locale.t('web.settings.gone'));
    return seeOther(reply, '/settings?notice=saved');
  });

  scope.post('/settings/digest-now', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const locale = localeFor(request);
    const outcome = await sendDigestNow(deps.digest(), session.accountId);
    switch (outcome.status) {
      case 'built':
        return seeOther(reply, `/settings?notice=built&digest=${outcome.digestId}`);
      case 'empty':
        return seeOther(reply, '/settings?notice=empty');
      case 'exists':
        return seeOther(reply, `/settings?notice=exists&digest=${outcome.digestId}`);
      case 'no_account':
        throw new WebError(404, locale.t('web.settings.gone'));
      default:
        throw new WebError(503, locale.t('web.settings.error.notBuilt'));
    }
  });
}

/** The message after a redirect; a digest named in the query is shown only when it is this account's. */
async function noticeFor(
  deps: WebDeps,
  session: WebSession,
  locale: Locale,
  query: Record<string, unknown>,
): Promise<SafeHtml | undefined> {
  const code = typeof query.notice === 'string' ? query.notice : '';
  if (code === 'saved') return html`${locale.t('web.settings.notice.saved')}`;
  if (code === 'unsubscribe_reset') return html`${locale.t('web.settings.notice.unsubscribeReset')}`;
  if (code === 'empty') return html`${locale.t('web.settings.notice.empty')}`;
  if (code !== 'built' && code !== 'exists') return undefined;
  const id =
    typeof query.digest === 'string' && /^[1-9]\d{0,15}$/.test(query.digest) ? Number(query.digest) : 0;
  const archived = await archivedDigest(deps.store, session.accountId, id, deps.config.baseUrl);
  if (archived === null) return undefined;
  const { digest } = archived;
  const link = html`<a href="${archived.webUrl}">${locale.t('web.settings.notice.readIt')}</a>`.value;
  if (code === 'exists') {
    const account = await showAccount(deps.store, session.accountId);
    const next = account === null ? null : await nextDigestOf(deps.store, account);
    return html`${new SafeHtml(locale.html('web.settings.notice.exists', { link }, ['link']))}
    ${nextDigestLine(locale, next, account?.timezone ?? 'UTC', 'now')}`;
  }
  const delivery =
    digest.delivery === 'pending' ? 'pending' : digest.delivery === 'no_smtp' ? 'noSmtp' : 'off';
  return new SafeHtml(
    locale.html('web.settings.notice.built', { count: digest.item_count, link, delivery }, ['link']),
  );
}
