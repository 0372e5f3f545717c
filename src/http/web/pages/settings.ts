import type { FastifyInstance } from 'fastify';
import { changeAccountSettings, sendDigestNow } from '../../../accounts/changeSettings.js';
import { type ArchivedDigest, archivedDigest, todaysDigest } from '../../../accounts/digests.js';
import { nextDigestOf } from '../../../accounts/profile.js';
import { showAccount } from '../../../accounts/service.js';
import { MAX_ITEMS_LIMIT, RENAMED_ZONES, settingsSchema } from '../../../accounts/settings.js';
import { storedDays } from '../../../digest/days.js';
import type { Slot } from '../../../digest/schedule.js';
import { canonicalZone } from '../../../digest/zone.js';
import type { Account } from '../../../store/accounts.js';
import type { Session as WebSession } from '../../../accounts/sessions.js';
import {
  type WebDeps,
  WebError,
  checkCsrf,
  formOf,
  requireSession,
  sendPage,
  seeOther,
  viewerOf,
} from '../context.js';
import { type SafeHtml, html } from '../html.js';
import { type Viewer, csrfField, page } from '../layout.js';
import { dueWords } from '../time.js';
import { digestNowSection, nextDigestLine } from './digestNow.js';
import { accountSection } from './profile.js';
import * as resurface from './resurfaceSettings.js';
import { emailControls } from './unsubscribe.js';
import { webRefusal } from '../errors.js';

const DAYS = [
  ['mon', 'Monday'],
  ['tue', 'Tuesday'],
  ['wed', 'Wednesday'],
  ['thu', 'Thursday'],
  ['fri', 'Friday'],
  ['sat', 'Saturday'],
  ['sun', 'Sunday'],
] as const;

const FIELD_LABELS: Record<string, string> = {
  timezone: 'Time zone',
  time: 'Send time',
  days: 'Days',
  maxItems: 'Most links in one digest',
  email: 'Email address',
  ereaderEmail: 'E-reader address',
  ...resurface.RESURFACE_LABELS,
};

let zones: string[] | undefined;
/** Every IANA zone this Node knows, for the searchable list. */
function zoneNames(): string[] {
  if (zones === undefined) {
    const known = Intl.supportedValuesOf('timeZone');
    const current = known.flatMap((z) => {
      const renamed = RENAMED_ZONES[z];
      return renamed !== undefined && canonicalZone(renamed) !== null ? [renamed] : [];
    });
    zones = [...new Set(['UTC', ...known, ...current])].sort();
  }
  return zones;
}

/** What the form holds: the stored settings, or what the reader typed when it was refused. */
interface SettingsForm extends resurface.ResurfaceForm {
  timezone: string;
  time: string;
  days: Set<string>;
  maxItems: string;
  skipEmpty: boolean;
  email: string;
  emailEnabled: boolean;
  ereaderEmail: string;
  images: boolean;
  cleanLinks: boolean;
}

function formFromAccount(a: Account): SettingsForm {
  const stored = storedDays(a.digest_days);
  return {
    timezone: a.timezone,
    time: a.digest_time,
    days: new Set(DAYS.filter((_, i) => stored.has((i + 1) as 1)).map(([d]) => d)),
    maxItems: String(a.digest_max_items),
    skipEmpty: a.digest_skip_empty,
    email: a.email ?? '',
    emailEnabled: a.email_enabled,
    ereaderEmail: a.ereader_email ?? '',
    images: a.show_images,
    cleanLinks: a.clean_links,
    ...resurface.resurfaceFormOf(a),
  };
}

function formFromBody(body: URLSearchParams): SettingsForm {
  const one = (name: string): string => body.get(name) ?? '';
  return {
    timezone: one('timezone'),
    time: one('time'),
    days: new Set(body.getAll('days').filter((d) => DAYS.some(([name]) => name === d))),
    maxItems: one('max_items'),
    skipEmpty: body.get('skip_empty') === 'on',
    email: one('email'),
    emailEnabled: body.get('email_enabled') === 'on',
    ereaderEmail: one('ereader_email'),
    images: body.get('images') === 'on',
    cleanLinks: body.get('clean_links') === 'on',
    ...resurface.resurfaceFormFromBody(body),
  };
}

/** Settings: when the digest comes and how; "send me a digest now". */
export function registerSettings(scope: FastifyInstance, deps: WebDeps): void {
  async function render(
    session: WebSession,
    extra: { form?: SettingsForm; errors?: string[]; notice?: SafeHtml },
  ) {
    const account = await showAccount(deps.store, session.accountId);
    const viewer = viewerOf(session);
    if (account === null || viewer === null) throw new WebError(404, 'This account no longer exists.');
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
    const notice = await noticeFor(deps, session, request.query as Record<string, unknown>);
    return sendPage(reply, 200, await render(session, { notice }));
  });

  scope.post('/settings', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const form = formFromBody(formOf(request));
    const errors: string[] = [];
    if (form.days.size === 0) errors.push('Days: choose at least one day.');
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
      ...resurface.resurfaceInput(form),
    });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const key = String(issue.path[0] ?? '');
        errors.push(`${FIELD_LABELS[key] ?? key}: ${issue.message}.`);
      }
    }
    if (errors.length > 0 || !parsed.success) {
      return sendPage(reply, 400, await render(session, { form, errors }));
    }
    let changed;
    try {
      changed = await changeAccountSettings(deps.store, session.accountId, parsed.data, deps.now());
    } catch (err) {
      // Another account's address (email_taken): the form again, with what was typed.
      const refusal = webRefusal(err, deps.config);
      if (refusal === null) throw err;
      return sendPage(reply, refusal.status, await render(session, { form, errors: [refusal.message] }));
    }
    if (changed === null) throw new WebError(404, 'This account no longer exists.');
    return seeOther(reply, '/settings?notice=saved');
  });

  scope.post('/settings/digest-now', async (request, reply) => {
    const session = requireSession(request);
    checkCsrf(request, session);
    const outcome = await sendDigestNow(deps.digest(), session.accountId);
    switch (outcome.status) {
      case 'built':
        return seeOther(reply, `/settings?notice=built&digest=${outcome.digestId}`);
      case 'empty':
        return seeOther(reply, '/settings?notice=empty');
      case 'exists':
        return seeOther(reply, `/settings?notice=exists&digest=${outcome.digestId}`);
      case 'no_account':
        throw new WebError(404, 'This account no longer exists.');
      default:
        throw new WebError(503, 'The digest could not be built just now. Try again in a moment.');
    }
  });
}

/** The message after a redirect; a digest named in the query is shown only when it is this account's. */
async function noticeFor(
  deps: WebDeps,
  session: WebSession,
  query: Record<string, unknown>,
): Promise<SafeHtml | undefined> {
  const code = typeof query.notice === 'string' ? query.notice : '';
  if (code === 'saved') return html`Saved.`;
  if (code === 'unsubscribe_reset') {
    return html`The unsubscribe and action links of the emails you were sent no longer work; the next email
    has new ones.`;
  }
  if (code === 'empty') return html`Your queue is empty: there is nothing to put in a digest.`;
  if (code !== 'built' && code !== 'exists') return undefined;
  const id =
    typeof query.digest === 'string' && /^[1-9]\d{0,15}$/.test(query.digest) ? Number(query.digest) : 0;
  const archived = await archivedDigest(deps.store, session.accountId, id, deps.config.baseUrl);
  if (archived === null) return undefined;
  const { digest } = archived;
  const link = html`<a href="${archived.webUrl}">Read it</a>`;
  if (code === 'exists') {
    const account = await showAccount(deps.store, session.accountId);
    const next = account === null ? null : await nextDigestOf(deps.store, account);
    return html`Today already has its digest, and Tidings builds one digest a day: nothing was built now.
    ${link}. ${nextDigestLine(next, account?.timezone ?? 'UTC', 'now')}`;
  }
  const count = `${digest.item_count} link${digest.item_count === 1 ? '' : 's'}`;
  const delivery =
    digest.delivery === 'pending'
      ? 'It is being emailed to you (within a minute).'
      : digest.delivery === 'no_smtp'
        ? 'It is not emailed: this Tidings has no mail server.'
        : 'It is not emailed: email is off, or there is no address below.';
  return html`Your digest of ${count} is built. ${link}. ${delivery}`;
}

interface SettingsView {
  viewer: Viewer;
  account: Account;
  /** When the next digest will be built. */
  next: Slot | null;
  /** Today's digest, when today has one. */
  today: ArchivedDigest | null;
  form: SettingsForm;
  errors: string[];
  notice: SafeHtml | undefined;
  emailConfigured: boolean;
  now: Date;
}

function settingsPage(v: SettingsView): SafeHtml {
  const { form, account } = v;
  const invalid = (key: string): SafeHtml | null =>
    v.errors.some((e) => e.startsWith(`${FIELD_LABELS[key] ?? key}:`))
      ? html` aria-invalid="true" aria-describedby="settings-errors"`
      : null;
  const due = html`Your next digest ${dueWords(v.next, account.timezone)}.`;
  return page({
    title: 'Settings',
    locale: v.viewer.locale,
    viewer: v.viewer,
    current: 'settings',
    body: html`<h1>Settings</h1>
      ${v.notice === undefined ? null : html`<p class="notice" role="status">${v.notice}</p>`}
      ${
        v.errors.length === 0
          ? null
          : html`<div class="error" role="alert" id="settings-errors">
              <p>The settings were not saved:</p>
              <ul>
                ${v.errors.map((e) => html`<li>${e}</li>`)}
              </ul>
            </div>`
      }
      <p>${due}</p>
      <p>Password and passkeys: <a href="/settings/sign-in">Sign-in settings</a>.</p>
      <p>E-reader apps (OPDS): <a href="/settings/e-reader-catalogue">E-reader catalogue</a>.</p>
      <p>KOReader, the wallabag apps, Wallabagger: <a href="/settings/apps">Apps</a>.</p>
      <form class="stack" method="post" action="/settings">
        ${csrfField(v.viewer)}
        <h2>When</h2>
        <div>
          <label for="timezone">Time zone</label>
          <input
            id="timezone"
            name="timezone"
            type="text"
            list="zones"
            required
            autocomplete="off"
            spellcheck="false"
            value="${form.timezone}"
            aria-describedby="timezone-hint"
            ${invalid('timezone')}
          />
          <datalist id="zones">${zoneNames().map((z) => html`<option value="${z}"></option>`)}</datalist>
          <p class="hint" id="timezone-hint">
            A city, such as Berlin or New York, or type to search the list. Saved as ${account.timezone}.
          </p>
        </div>
        <div>
          <label for="time">Send time</label>
          <input id="time" name="time" type="time" required value="${form.time}" ${invalid('time')} />
        </div>
        <fieldset class="days" ${invalid('days')}>
          <legend>Days</legend>
          ${DAYS.map(
            ([d, name]) =>
              html`<label class="check"
                ><input
                  type="checkbox"
                  name="days"
                  value="${d}"
                  ${form.days.has(d) ? html` checked` : null}
                />
                ${name}</label
              >`,
          )}
        </fieldset>
        <h2>What</h2>
        <div>
          <label for="max-items">Most links in one digest</label>
          <input
            id="max-items"
            name="max_items"
            type="number"
            min="1"
            max="${MAX_ITEMS_LIMIT}"
            required
            inputmode="numeric"
            value="${form.maxItems}"
            aria-describedby="max-items-hint"
            ${invalid('maxItems')}
          />
          <p class="hint" id="max-items-hint">
            Your own saved links, oldest first; the rest wait for the next digest. Every feed item goes in,
            the email showing a few of each feed.
          </p>
        </div>
        <label class="check"
          ><input type="checkbox" name="skip_empty" ${form.skipEmpty ? html` checked` : null} /> No digest on
          a day when the queue is empty</label
        >
        <label class="check"
          ><input type="checkbox" name="images" ${form.images ? html` checked` : null} /> Show each link’s
          picture beside it (digests and the queue)</label
        >
        <label class="check"
          ><input type="checkbox" name="clean_links" ${form.cleanLinks ? html` checked` : null} /> Remove
          tracking parameters (utm_source, fbclid…) from the links I am sent</label
        >
        ${resurface.resurfaceFields(form, invalid)}
        <h2>Email</h2>
        ${
          v.emailConfigured
            ? null
            : html`<p class="hint">
                This Tidings has no mail server configured, so digests are not emailed for now; they are still
                built.
              </p>`
        }
        <div>
          <label for="email">Email address</label>
          <input
            id="email"
            name="email"
            type="email"
            autocomplete="email"
            value="${form.email}"
            ${invalid('email')}
          />
        </div>
        <label class="check"
          ><input type="checkbox" name="email_enabled" ${form.emailEnabled ? html` checked` : null} /> Email
          me each digest</label
        >
        <div>
          <label for="ereader_email">E-reader address</label>
          <input
            id="ereader_email"
            name="ereader_email"
            type="email"
            value="${form.ereaderEmail}"
            ${invalid('ereaderEmail')}
          />
          <p class="hint">
            Each digest is mailed there as an EPUB (Kindle: your Send-to-Kindle address; add this Tidings'
            sender to Amazon's approved list). Empty: none.
          </p>
        </div>
        <div><button type="submit">Save settings</button></div>
      </form>
      ${emailControls(v.viewer, account, v.now)}
      ${digestNowSection(v.viewer, v.today, v.next, account.timezone)} ${accountSection(account)}`,
  });
}
