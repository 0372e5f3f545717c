import { z } from 'zod';
import { formatDayList, parseDays } from '../digest/days.js';
import { canonicalZone } from '../digest/zone.js';
import { TidingsError } from '../errors.js';
import { emailAddressProblem } from '../lib/email.js';

/**
 * An account's digest settings as a person types them (`tidings account set`), validated by one schema
 * into what the store keeps. Every field is optional: only what is given changes.
 */

export const MAX_ITEMS_LIMIT = 10_000;

const timezone = z.string().transform((value, ctx) => {
  const zone = canonicalZone(value);
  if (zone === null) {
    ctx.addIssue({
      code: 'custom',
      message: `unknown time zone "${value}" (use an IANA name such as Europe/Berlin or America/New_York)`,
    });
    return z.NEVER;
  }
  return zone;
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
  skipEmpty: flag.optional(),
  images: flag.optional(),
  cleanLinks: flag.optional(),
});

export type SettingsChange = z.output<typeof settingsSchema>;

const OPTION_NAMES: Record<string, string> = {
  timezone: '--timezone',
  time: '--time',
  days: '--days',
  maxItems: '--max-items',
  email: '--email',
  emailEnabled: '--email-enabled',
  skipEmpty: '--skip-empty',
  images: '--images',
  cleanLinks: '--clean-links',
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
