import type { DigestView } from '../view.js';
import { countsLine } from './common.js';

/** Width plain-text digests wrap at. */
export const TEXT_WIDTH = 72;

/**
 * The plain-text alternative of the digest email: wrapped at 72 columns, every link spelled out on a line
 * of its own (never broken, however long), groups as underlined headings.
 */
export function renderText(view: DigestView): string {
  const out: string[] = [];
  out.push(...wrap(`Tidings — ${view.dateLabel}`, TEXT_WIDTH));
  out.push(...wrap(countsLine(view), TEXT_WIDTH));
  for (const group of view.groups) {
    const heading = wrap(group.title.toUpperCase(), TEXT_WIDTH);
    out.push('', ...heading, '='.repeat(Math.min(TEXT_WIDTH, Math.max(...heading.map((l) => l.length)))), '');
    for (const item of group.items) {
      out.push(...wrap(item.title, TEXT_WIDTH, '* ', '  '));
      const meta = [item.domain, item.publishedLabel].filter((s): s is string => s !== null && s !== '');
      if (meta.length > 0) out.push(...wrap(meta.join(' · '), TEXT_WIDTH, '  ', '  '));
      if (item.excerpt !== '') out.push(...wrap(item.excerpt, TEXT_WIDTH, '  ', '  '));
      if (item.href !== null) out.push(`  ${item.href}`);
      out.push('');
    }
  }
  out.push('-- ');
  out.push(`Read on the web: ${view.links.web}`);
  out.push(`Manage feeds: ${view.links.feeds}`);
  out.push(`Settings: ${view.links.settings}`);
  out.push(
    ...wrap(`Times are in ${view.account.timezone}. Tidings account "${view.account.name}".`, TEXT_WIDTH),
  );
  return `${out.join('\n')}\n`;
}

/**
 * Words of `text` in lines of at most `width` characters, the first starting with `first` and the rest with
 * `rest`. A word longer than a line (a URL) gets a line of its own and is never cut.
 */
export function wrap(text: string, width: number, first = '', rest = first): string[] {
  const words = text.split(/\s+/).filter((w) => w !== '');
  const lines: string[] = [];
  let line = first;
  let length = codePoints(first); // in characters, not UTF-16 units
  let empty = true;
  for (const word of words) {
    const size = codePoints(word);
    if (!empty && length + 1 + size > width) {
      lines.push(line);
      line = rest;
      length = codePoints(rest);
      empty = true;
    }
    line += empty ? word : ` ${word}`;
    length += empty ? size : size + 1;
    empty = false;
  }
  if (!empty) lines.push(line);
  return lines;
}

function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) n++;
  }
  return n;
}
