import { parseDays } from '../digest/days.js';
import { LANGUAGE_CODES } from '../i18n/languages.js';
import type { SettingRefusal } from '../errors.js';
import { emailAddressProblem } from '../lib/email.js';

export type { SettingRefusal } from '../errors.js';

/** The most characters a typed time zone may have. */
export const ZONE_MAX_CHARS = 100;

const ZONE_EXAMPLE = 'a city such as Berlin or New York, or an IANA name such as Europe/Berlin';

/** A setting's refusal in English words (the CLI's and the API's), after the option's name. */
export function settingProblem(facts: SettingRefusal): string {
  switch (facts.reason) {
    case 'zone_empty':
      return `enter a time zone: ${ZONE_EXAMPLE}`;
    case 'zone_too_long':
      return `a time zone is at most ${facts.max} characters; type ${ZONE_EXAMPLE}`;
    case 'zone_ambiguous':
      return `"${facts.typed}" names several time zones (${facts.zones.join(', ')}): type one of them`;
    case 'zone_unknown':
      return `unknown time zone "${facts.typed}": type ${ZONE_EXAMPLE}`;
    case 'time_invalid':
      return `must be HH:MM from 00:00 to 23:59, not "${facts.typed}"`;
    case 'days_empty':
      return daysProblem('');
    case 'days_invalid':
      return daysProblem(facts.typed);
    case 'not_whole_number':
      return 'must be a whole number';
    case 'number_too_small':
      return `must be at least ${facts.min}`;
    case 'number_too_large':
      return `must be at most ${facts.max}`;
    case 'number_out_of_range':
      return `must be a whole number from ${facts.min} to ${facts.max}`;
    case 'email_invalid':
      return `not an email address: "${facts.typed}" (${emailAddressProblem(facts.typed.trim()) ?? 'invalid'})`;
    case 'order_invalid':
      return `must be oldest or random, not "${facts.typed}"`;
    case 'language_code_too_long':
      return 'must be a language code such as de or pt-BR';
    case 'language_unknown':
      return `"${facts.typed}" is not a language Tidings speaks: one of ${LANGUAGE_CODES.join(', ')}, or default`;
    case 'flag_invalid':
      return `must be true or false, not "${facts.typed}"`;
  }
}

/** The days' own English words (src/digest/days.ts), for a value it refuses. */
function daysProblem(typed: string): string {
  const parsed = parseDays(typed);
  return typeof parsed === 'string' ? parsed : `"${typed}" is not a list of days`;
}
