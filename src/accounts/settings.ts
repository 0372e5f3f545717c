import * as z from 'zod';
import { formatDayList, parseDays } from '../digest/days.js';
import { RESURFACE_MAX } from '../digest/resurface.js';
import { canonicalZone } from '../digest/zone.js';
import { TidingsError } from '../errors.js';
import { emailAddressProblem } from '../lib/email.js';
import { languageOf } from '../i18n/languages.js';
import { type SettingRefusal, ZONE_MAX_CHARS, settingProblem } from './settingRefusals.js';

/**
 * An account's digest settings as a person types them (`tidings account set`), validated by one schema
 * into what the store keeps. Every field is optional: only what is given changes.
 */

export const MAX_ITEMS_LIMIT = 10_000;

/**
 * ICU lists some zones under their old names (Intl.supportedValuesOf); their current names are valid too,
 * and offered in the web's list of zones and as cities ("Kyiv").
 */
export const RENAMED_ZONES: Readonly<Record<string, string>> = {
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Asia/Rangoon': 'Asia/Yangon',
  'Europe/Kiev': 'Europe/Kyiv',
  'Atlantic/Faeroe': 'Atlantic/Faroe',
  'America/Godthab': 'America/Nuuk',
  'Pacific/Enderbury': 'Pacific/Kanton',
  'Pacific/Truk': 'Pacific/Chuuk',
  'Pacific/Ponape': 'Pacific/Pohnpei',
};

let zonesByCity: Map<string, string[]> | undefined;

/** Every zone this Node knows by its city, the last part of its name in lower case ("new_york"). */
function cities(): Map<string, string[]> {
  if (zonesByCity === undefined) {
    const known = Intl.supportedValuesOf('timeZone');
    const current = known.flatMap((z) => {
      const renamed = RENAMED_ZONES[z];
      return renamed !== undefined && canonicalZone(renamed) !== null ? [renamed] : [];
    });
    zonesByCity = new Map();
    for (const zone of new Set([...known, ...current])) {
      const city = (zone.split('/').pop() ?? zone).toLowerCase();
      zonesByCity.set(city, [...(zonesByCity.get(city) ?? []), zone]);
    }
  }
  return zonesByCity;
}

/**
 * A time zone as a person types it, wherever one is typed (`account create` and `account set`, the web's
 * Settings): an IANA name ("Europe/Berlin", any case), or a city, the last part of one ("Berlin",
 * "new york": case does not matter, spaces stand for underscores). The zone's name, or why not, as facts.
 */
export function zoneRefusalOf(value: string): { zone: string } | { refusal: SettingRefusal } {
  const typed = value.trim();
  if (typed === '') return { refusal: { reason: 'zone_empty' } };
  if (typed.length > ZONE_MAX_CHARS) return { refusal: { reason: 'zone_too_long', max: ZONE_MAX_CHARS } };
  const named = canonicalZone(typed);
  if (named !== null) return { zone: named };
  const city = typed.replace(/\s+/g, '_').toLowerCase();
  const zones = city.includes('/') ? [] : (cities().get(city) ?? []);
  const [only, ...others] = zones;
  if (only !== undefined && others.length === 0) return { zone: only };
  if (only !== undefined) return { refusal: { reason: 'zone_ambiguous', typed, zones } };
  return { refusal: { reason: 'zone_unknown', typed } };
}

/** Refuses a setting: its facts ride on the issue (settingRefusalOf), its English words are the message. */
function refuse(ctx: z.RefinementCtx, facts: SettingRefusal): never {
  ctx.addIssue({ code: 'custom', message: settingProblem(facts), params: { refusal: facts } });
  return z.NEVER;
}

/** The facts of a refused setting, as settingsSchema's issue carries them. */
export function settingRefusalOf(issue: z.core.$ZodIssue): SettingRefusal | undefined {
  return issue.code === 'custom' ? (issue.params?.refusal as SettingRefusal | undefined) : undefined;
}

const timezone = z.string().transform((value, ctx) => {
  const found = zoneRefusalOf(value);
  return 'zone' in found ? found.zone : refuse(ctx, found.refusal);
});

const time = z.string().transform((value, ctx) => {
  const m = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(value.trim());
  if (m === null) return refuse(ctx, { reason: 'time_invalid', typed: value });
  return `${(m[1] ?? '').padStart(2, '0')}:${m[2] ?? ''}`;
});

const days = z.string().transform((value, ctx) => {
  const parsed = parseDays(value);
  if (typeof parsed !== 'string') return formatDayList(parsed);
  return refuse(
    ctx,
    value.trim() === '' ? { reason: 'days_empty' } : { reason: 'days_invalid', typed: value },
  );
});

/** A whole number typed as digits (at most `digits` of them), from min to max. */
const wholeNumber = (min: number, max: number, digits?: number) =>
  z.string().transform((value, ctx) => {
    if (!(digits === undefined ? /^\d+$/ : new RegExp(`^\\d{1,${digits}}$`)).test(value)) {
      return refuse(
        ctx,
        digits === undefined ? { reason: 'not_whole_number' } : { reason: 'number_out_of_range', min, max },
      );
    }
    const n = Number(value);
    if (n < min) return refuse(ctx, { reason: 'number_too_small', min });
    if (n > max) return refuse(ctx, { reason: 'number_too_large', max });
    return n;
  });

const maxItems = wholeNumber(1, MAX_ITEMS_LIMIT);

const email = z.string().transform((value, ctx) => {
  const address = value.trim();
  if (address === '') return null; // an empty address removes it
  return emailAddressProblem(address) === null
    ? address
    : refuse(ctx, { reason: 'email_invalid', typed: value });
});

/** The e-reader's address: the email address's rule; `none`, as an empty string, removes it. */
const ereaderEmail = z
  .string()
  .transform((value) => (value.trim().toLowerCase() === 'none' ? '' : value))
  .pipe(email);

/** Reading-list items a digest offers: 0 (none) to RESURFACE_MAX. */
const resurface = wholeNumber(0, RESURFACE_MAX, 3);

const RESURFACE_ORDERS = ['oldest', 'random'] as const;
const resurfaceOrder = z.unknown().transform((value, ctx) => {
  const order = RESURFACE_ORDERS.find((o) => o === value);
  return order ?? refuse(ctx, { reason: 'order_invalid', typed: String(value) });
});

/** A language Tidings speaks ("de", "pt-br", "de-AT" → "de"), or "default" (null: the operator's). */
const language = z.string().transform((value, ctx) => {
  if (value.length > 35) return refuse(ctx, { reason: 'language_code_too_long' });
  if (value.trim().toLowerCase() === 'default') return null;
  const found = languageOf(value);
  return found !== undefined ? found.code : refuse(ctx, { reason: 'language_unknown', typed: value });
});

const flag = z.unknown().transform((value, ctx) => {
  if (value === 'true' || value === 'false') return value === 'true';
  return refuse(ctx, { reason: 'flag_invalid', typed: String(value) });
});

/** What `account set` accepts, by option name. */
export const settingsSchema = z.strictObject({
  timezone: timezone.optional(),
  time: time.optional(),
  days: days.optional(),
  maxItems: maxItems.optional(),
  email: email.optional(),
  emailEnabled: flag.optional(),
  ereaderEmail: ereaderEmail.optional(),
  resurface: resurface.optional(),
  resurfaceOrder: resurfaceOrder.optional(),
  skipEmpty: flag.optional(),
  images: flag.optional(),
  cleanLinks: flag.optional(),
  language: language.optional(),
});

export type SettingsChange = z.output<typeof settingsSchema>;

const OPTION_NAMES: Record<string, string> = {
  timezone: '--timezone',
  time: '--time',
  days: '--days',
  maxItems: '--max-items',
  email: '--email',
  emailEnabled: '--email-enabled',
  ereaderEmail: '--ereader-email',
  resurface: '--resurface',
  resurfaceOrder: '--resurface-order',
  skipEmpty: '--skip-empty',
  images: '--images',
  cleanLinks: '--clean-links',
  language: '--language',
};

/** Validates every given setting; throws invalid_input naming each bad option. */
export function parseSettings(input: Record<string, unknown>): SettingsChange {
  const result = settingsSchema.safeParse(input);
  if (result.success) return result.data;
  const lines = result.error.issues.map((i) => {
    const key = String(i.path[0] ?? '');
    return `${OPTION_NAMES[key] ?? key}: ${i.message}`;
  });
  throw new TidingsError('invalid_input', lines.join('; '));
}
