import { z } from 'zod';
import { formatDayList, parseDays } from '../digest/days.js';
import { RESURFACE_MAX } from '../digest/resurface.js';
import { canonicalZone } from '../digest/zone.js';
import { TidingsError } from '../errors.js';
import { emailAddressProblem } from '../lib/email.js';
import { LANGUAGE_CODES, languageOf } from '../i18n/languages.js';

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

const ZONE_EXAMPLE = 'a city such as Berlin or New York, or an IANA name such as Europe/Berlin';

/**
 * A time zone as a person types it, wherever one is typed (`account create` and `account set`, the web's
 * Settings): an IANA name ("Europe/Berlin", any case), or a city, the last part of one ("Berlin",
 * "new york": case does not matter, spaces stand for underscores). The zone's name, or why not, in words
 * that name an example.
 */
export function zoneFromInput(value: string): { zone: string } | { problem: string } {
  const typed = value.trim();
  if (typed === '') return { problem: `enter a time zone: ${ZONE_EXAMPLE}` };
  if (typed.length > 100) return { problem: `a time zone is at most 100 characters; type ${ZONE_EXAMPLE}` };
  const named = canonicalZone(typed);
  if (named !== null) return { zone: named };
  const city = typed.replace(/\s+/g, '_').toLowerCase();
  const zones = city.includes('/') ? [] : (cities().get(city) ?? []);
  const [only, ...others] = zones;
  if (only !== undefined && others.length === 0) return { zone: only };
  if (only !== undefined) {
    return { problem: `"${typed}" names several time zones (${zones.join(', ')}): type one of them` };
  }
  return { problem: `unknown time zone "${typed}": type ${ZONE_EXAMPLE}` };
}

const timezone = z.string().transform((value, ctx) => {
  const found = zoneFromInput(value);
  if ('problem' in found) {
    ctx.addIssue({ code: 'custom', message: found.problem });
    return z.NEVER;
  }
  return found.zone;
});

const time = z.string().transform((value, ctx) => {
  const m = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(value.trim());
  if (m === null) {
    ctx.addIssue({ code: 'custom', message: `must be HH:MM from 00:00 to 23:59, not "${value}"` });
    return z.NEVER;
  }
  return `${(m[1] ?? '').padStart(2, '0')}:${m[2] ?? ''}`;
});

const days = z.string().transform((value, ctx) => {
  const parsed = parseDays(value);
  if (typeof parsed === 'string') {
    ctx.addIssue({ code: 'custom', message: parsed });
    return z.NEVER;
  }
  return formatDayList(parsed);
});

const maxItems = z
  .string()
  .regex(/^\d+$/, { error: 'must be a whole number' })
  .transform(Number)
  .pipe(
    z
      .number()
      .int()
      .min(1, { error: 'must be at least 1' })
      .max(MAX_ITEMS_LIMIT, { error: `must be at most ${MAX_ITEMS_LIMIT}` }),
  );

const email = z.string().transform((value, ctx) => {
  const address = value.trim();
  if (address === '') return null; // an empty address removes it
  const problem = emailAddressProblem(address);
  if (problem !== null) {
    ctx.addIssue({ code: 'custom', message: `not an email address: "${value}" (${problem})` });
    return z.NEVER;
  }
  return address;
});

/** The e-reader's address: the email address's rule; `none`, as an empty string, removes it. */
const ereaderEmail = z
  .string()
  .transform((value) => (value.trim().toLowerCase() === 'none' ? '' : value))
  .pipe(email);

/** Reading-list items a digest offers: 0 (none) to RESURFACE_MAX. */
const resurface = z
  .string()
  .regex(/^\d{1,3}$/, { error: `must be a whole number from 0 to ${RESURFACE_MAX}` })
  .transform(Number)
  .pipe(
    z
      .number()
      .int()
      .max(RESURFACE_MAX, { error: `must be at most ${RESURFACE_MAX}` }),
  );

const resurfaceOrder = z.enum(['oldest', 'random'], {
  error: (issue) => `must be oldest or random, not "${String(issue.input)}"`,
});

/** A language Tidings speaks ("de", "pt-br", "de-AT" → "de"), or "default" (null: the operator's). */
const language = z
  .string()
  .max(35, { error: 'must be a language code such as de or pt-BR' })
  .transform((value, ctx) => {
    if (value.trim().toLowerCase() === 'default') return null;
    const found = languageOf(value);
    if (found !== undefined) return found.code;
    ctx.addIssue({
      code: 'custom',
      message: `"${value}" is not a language Tidings speaks: one of ${LANGUAGE_CODES.join(', ')}, or default`,
    });
    return z.NEVER;
  });

const flag = z
  .enum(['true', 'false'], { error: (issue) => `must be true or false, not "${String(issue.input)}"` })
  .transform((v) => v === 'true');

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
