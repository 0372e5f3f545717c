import { escapeHtml } from '../../lib/escape.js';

/**
 * HTML that escapes by default: `html` is a tagged template whose interpolations are escaped unless they
 * are themselves `html` fragments (or arrays of them). Templates quote every attribute value, so escaping
 * the five characters escapeHtml does is enough both between tags and inside attributes.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** What may be interpolated: text (escaped), numbers, fragments, lists of those; null/undefined/false: nothing. */
export type Interpolation = string | number | SafeHtml | null | undefined | false | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return escapeHtml(value);
  return value.map(render).join('');
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new SafeHtml(out);
}

/**
 * An href for a URL that came from outside (a saved link): only http(s) URLs are links, anything else
 * (javascript:, data:…) becomes '#'. The result still goes through escaping like any attribute value.
 */
export function safeHref(url: string): string {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? url : '#';
  } catch {
    return '#';
  }
}

/**
 * Markup around words of a catalogue message, for `locale.html(key, {...values, ...around}, [...names])`:
 * the message keeps the words (`{linkStart}read it{linkEnd}`), so a sentence is never glued from a
 * translated piece. `link(href)`: an `<a>`; `strong`: `<strong>`.
 */
export const markup = {
  // A string, not an `html` template: the tag opens here and closes at linkEnd. `external`: another
  // site's page, opened without telling it where from.
  link: (href: string, external = false) => ({
    linkStart: `<a href="${escapeHtml(href)}"${external ? ' rel="noopener noreferrer"' : ''}>`,
    linkEnd: '</a>',
  }),
  strong: { strongStart: '<strong>', strongEnd: '</strong>' },
  linkNames: ['linkStart', 'linkEnd'],
  strongNames: ['strongStart', 'strongEnd'],
} as const;
