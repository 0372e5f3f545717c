import { RESURFACE_MAX } from '../../../digest/resurface.js';
import type { Account } from '../../../store/accounts.js';
import type { Locale } from '../../../i18n/locale.js';
import type { LabelKey } from '../localeTime.js';
import { type SafeHtml, html } from '../html.js';

/*
 * The Settings page's part for "From your reading list" (digest/resurface.ts): how many unread
 * reading-list items each digest offers, and in which order. Validated by accounts/settings.ts's schema,
 * as `account set --resurface N --resurface-order oldest|random` is.
 */

/** What the form holds of it: as stored, or as typed when the form was refused; null: not in the form. */
export interface ResurfaceForm {
  resurface: string | null;
  resurfaceOrder: string | null;
}

/** The fields' names in the error list ("Reading list in each digest: must be at most 10."). */
export const RESURFACE_LABELS: Record<string, LabelKey> = {
  resurface: 'web.settings.field.resurface',
  resurfaceOrder: 'web.settings.field.resurfaceOrder',
};

export const resurfaceFormOf = (a: Account): ResurfaceForm => ({
  resurface: String(a.resurface_count),
  resurfaceOrder: a.resurface_order,
});

/** As posted, each cut to 20 characters (the schema refuses what is longer anyway). */
export const resurfaceFormFromBody = (body: URLSearchParams): ResurfaceForm => ({
  resurface: body.get('resurface')?.trim().slice(0, 20) ?? null,
  resurfaceOrder: body.get('resurface_order')?.slice(0, 20) ?? null,
});

/** What settingsSchema is given: a field a form did not carry (a page from before) changes nothing. */
export const resurfaceInput = (form: ResurfaceForm): Partial<Record<keyof ResurfaceForm, string>> => ({
  ...(form.resurface === null ? {} : { resurface: form.resurface }),
  ...(form.resurfaceOrder === null ? {} : { resurfaceOrder: form.resurfaceOrder }),
});

export function resurfaceFields(
  locale: Locale,
  form: ResurfaceForm,
  invalid: (key: string) => SafeHtml | null,
): SafeHtml {
  const option = (value: string, label: LabelKey): SafeHtml =>
    html`<option value="${value}" ${form.resurfaceOrder === value ? html` selected` : null}>
      ${locale.t(label)}
    </option>`;
  return html`<div>
      <label for="resurface">${locale.t('web.settings.resurface')}</label>
      <input
        id="resurface"
        name="resurface"
        type="number"
        min="0"
        max="${RESURFACE_MAX}"
        required
        inputmode="numeric"
        value="${form.resurface ?? ''}"
        aria-describedby="resurface-hint"
        ${invalid('resurface')}
      />
      <p class="hint" id="resurface-hint">
        ${locale.t('web.settings.resurfaceHint', { max: RESURFACE_MAX })}
      </p>
    </div>
    <div>
      <label for="resurface_order">${locale.t('web.settings.resurfaceOrder')}</label>
      <select id="resurface_order" name="resurface_order" ${invalid('resurfaceOrder')}>
        ${option('oldest', 'web.settings.resurfaceOldest')}
        ${option('random', 'web.settings.resurfaceRandom')}
      </select>
    </div>`;
}
