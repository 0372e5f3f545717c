import type { ArchivedDigest } from '../../../accounts/digests.js';
import { MAX_ITEMS_LIMIT, RENAMED_ZONES } from '../../../accounts/settings.js';
import { storedDays } from '../../../digest/days.js';
import type { Slot } from '../../../digest/schedule.js';
import { canonicalZone } from '../../../digest/zone.js';
import type { Locale } from '../../../i18n/locale.js';
import { LANGUAGES } from '../../../i18n/languages.js';
import type { Account } from '../../../store/accounts.js';
import { SafeHtml, html } from '../html.js';
import { type Viewer, csrfField, page } from '../layout.js';
import { type LabelKey, localeTimeElement } from '../localeTime.js';
import { digestNowSection } from './digestNow.js';
import { accountSection } from './profile.js';
import * as resurface from './resurfaceSettings.js';
import { emailControls } from './unsubscribe.js';

export const DAYS = [
  ['mon', 'web.settings.day.mon'],
  ['tue', 'web.settings.day.tue'],
  ['wed', 'web.settings.day.wed'],
  ['thu', 'web.settings.day.thu'],
  ['fri', 'web.settings.day.fri'],
  ['sat', 'web.settings.day.sat'],
  ['sun', 'web.settings.day.sun'],
] as const satisfies readonly (readonly [string, LabelKey])[];

/** The fields' names in the error list ("Time zone: unknown time zone …"). */
export const FIELD_LABELS: Record<string, LabelKey> = {
  timezone: 'web.settings.field.timezone',
  time: 'web.settings.field.time',
  days: 'web.settings.field.days',
  maxItems: 'web.settings.field.maxItems',
  email: 'web.settings.field.email',
  ereaderEmail: 'web.settings.field.ereaderEmail',
  language: 'web.settings.field.language',
  ...resurface.RESURFACE_LABELS,
};

/** One refusal of the form: the field it is about (marked invalid), and its sentence. */
export interface SettingsError {
  field: string | null;
  text: string;
}

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
export interface SettingsForm extends resurface.ResurfaceForm {
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
  /** A language code, "default" (the browser's, else the server's), or null: not in the form. */
  language: string | null;
}

export function formFromAccount(a: Account): SettingsForm {
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
    language: a.language ?? 'default',
    ...resurface.resurfaceFormOf(a),
  };
}

export function formFromBody(body: URLSearchParams): SettingsForm {
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
    language: body.get('language')?.slice(0, 40) ?? null,
    ...resurface.resurfaceFormFromBody(body),
  };
}

export interface SettingsView {
  viewer: Viewer;
  account: Account;
  /** When the next digest will be built. */
  next: Slot | null;
  /** Today's digest, when today has one. */
  today: ArchivedDigest | null;
  form: SettingsForm;
  errors: SettingsError[];
  notice: SafeHtml | undefined;
  emailConfigured: boolean;
  now: Date;
}

/** "Your next digest is due <time> (zone)", or "… is not scheduled yet". */
function dueLine(locale: Locale, next: Slot | null, zone: string): SafeHtml {
  if (next === null) return html`${locale.t('web.settings.dueNone')}`;
  const time = localeTimeElement(locale, next.at.toISOString(), zone);
  return new SafeHtml(locale.html('web.settings.due', { time: time.value, zone }, ['time']));
}

/** The language of the pages and digests: each by its name in itself; "default" follows the browser. */
function languageField(locale: Locale, form: SettingsForm, invalid: SafeHtml | null): SafeHtml {
  const chosen = form.language ?? 'default';
  return html`<div>
    <label for="language">${locale.t('web.settings.language')}</label>
    <select id="language" name="language" aria-describedby="language-hint" ${invalid}>
      <option value="default" ${chosen === 'default' ? html` selected` : null}>
        ${locale.t('web.settings.languageDefault')}
      </option>
      ${LANGUAGES.filter((l) => l.code !== 'en-XA').map(
        (l) =>
          html`<option value="${l.code}" lang="${l.code}" ${chosen === l.code ? html` selected` : null}>
            ${l.name}
          </option>`,
      )}
    </select>
    <p class="hint" id="language-hint">${locale.t('web.settings.languageHint')}</p>
  </div>`;
}

export function settingsPage(v: SettingsView): SafeHtml {
  const { form, account } = v;
  const { locale } = v.viewer;
  const invalid = (key: string): SafeHtml | null =>
    v.errors.some((e) => e.field === key)
      ? html` aria-invalid="true" aria-describedby="settings-errors"`
      : null;
  const link = (href: string, key: LabelKey): string => html`<a href="${href}">${locale.t(key)}</a>`.value;
  return page({
    title: locale.t('web.settings.title'),
    locale,
    viewer: v.viewer,
    current: 'settings',
    body: html`<h1>${locale.t('web.settings.title')}</h1>
      ${v.notice === undefined ? null : html`<p class="notice" role="status">${v.notice}</p>`}
      ${
        v.errors.length === 0
          ? null
          : html`<div class="error" role="alert" id="settings-errors">
              <p>${locale.t('web.settings.notSaved')}</p>
              <ul>
                ${v.errors.map((e) => html`<li>${e.text}</li>`)}
              </ul>
            </div>`
      }
      <p>${dueLine(locale, v.next, account.timezone)}</p>
      <p>
        ${new SafeHtml(
          locale.html(
            'web.settings.signInLink',
            { link: link('/settings/sign-in', 'web.settings.signInLinkLabel') },
            ['link'],
          ),
        )}
      </p>
      <p>
        ${new SafeHtml(
          locale.html(
            'web.settings.opdsLink',
            { link: link('/settings/e-reader-catalogue', 'web.settings.opdsLinkLabel') },
            ['link'],
          ),
        )}
      </p>
      <p>
        ${new SafeHtml(
          locale.html(
            'web.settings.appsLink',
            { link: link('/settings/apps', 'web.settings.appsLinkLabel') },
            ['link'],
          ),
        )}
      </p>
      <form class="stack" method="post" action="/settings">
        ${csrfField(v.viewer)}
        <h2>${locale.t('web.settings.when')}</h2>
        <div>
          <label for="timezone">${locale.t('web.settings.field.timezone')}</label>
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
            ${locale.t('web.settings.timezoneHint', { zone: account.timezone })}
          </p>
        </div>
        <div>
          <label for="time">${locale.t('web.settings.field.time')}</label>
          <input id="time" name="time" type="time" required value="${form.time}" ${invalid('time')} />
        </div>
        <fieldset class="days" ${invalid('days')}>
          <legend>${locale.t('web.settings.field.days')}</legend>
          ${DAYS.map(
            ([d, name]) =>
              html`<label class="check"
                ><input
                  type="checkbox"
                  name="days"
                  value="${d}"
                  ${form.days.has(d) ? html` checked` : null}
                />
                ${locale.t(name)}</label
              >`,
          )}
        </fieldset>
        <h2>${locale.t('web.settings.what')}</h2>
        <div>
          <label for="max-items">${locale.t('web.settings.field.maxItems')}</label>
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
          <p class="hint" id="max-items-hint">${locale.t('web.settings.maxItemsHint')}</p>
        </div>
        <label class="check"
          ><input type="checkbox" name="skip_empty" ${form.skipEmpty ? html` checked` : null} />
          ${locale.t('web.settings.skipEmpty')}</label
        >
        <label class="check"
          ><input type="checkbox" name="images" ${form.images ? html` checked` : null} />
          ${locale.t('web.settings.images')}</label
        >
        <label class="check"
          ><input type="checkbox" name="clean_links" ${form.cleanLinks ? html` checked` : null} />
          ${locale.t('web.settings.cleanLinks')}</label
        >
        ${resurface.resurfaceFields(locale, form, invalid)}
        <h2>${locale.t('web.settings.languageHeading')}</h2>
        ${languageField(locale, form, invalid('language'))}
        <h2>${locale.t('web.settings.email')}</h2>
        ${v.emailConfigured ? null : html`<p class="hint">${locale.t('web.settings.noMailServer')}</p>`}
        <div>
          <label for="email">${locale.t('web.settings.field.email')}</label>
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
          ><input type="checkbox" name="email_enabled" ${form.emailEnabled ? html` checked` : null} />
          ${locale.t('web.settings.emailEnabled')}</label
        >
        <div>
          <label for="ereader_email">${locale.t('web.settings.field.ereaderEmail')}</label>
          <input
            id="ereader_email"
            name="ereader_email"
            type="email"
            value="${form.ereaderEmail}"
            ${invalid('ereaderEmail')}
          />
          <p class="hint">${locale.t('web.settings.ereaderHint')}</p>
        </div>
        <div><button type="submit">${locale.t('web.settings.save')}</button></div>
      </form>
      ${emailControls(v.viewer, account, v.now)}
      ${digestNowSection(v.viewer, v.today, v.next, account.timezone)} ${accountSection(locale, account)}`,
  });
}
