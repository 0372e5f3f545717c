import { codePoints } from '../../lib/text.js';
import type { DigestView } from '../view.js';
import { countsLine, entriesLine, moreLine, sectionBefore, sourceWord } from './common.js';
import { EMAIL_EXCERPT } from './html.js';
import { excerptOfText } from '../view.js';
import { resurfacedText } from './resurfaced.js';

/** Width plain-text digests wrap at. */
export const TEXT_WIDTH = 72;

/**
 * The plain-text alternative of the digest email: wrapped at 72 columns, every link spelled out on a line
 * of its own (never broken, however long), groups as underlined headings.
 */
export function renderText(view: DigestView): string {
  const t = view.locale;
  const linkLine = (label: string, href: string): string => t.t('digest.text.link', { label, href });
  const out: string[] = [];
  out.push(...wrap(t.t('digest.title', { date: view.dateLabel }), TEXT_WIDTH));
  out.push(...wrap(countsLine(view), TEXT_WIDTH));
  if (view.laidOut) out.push(...wrap(entriesLine(view, EMAIL_EXCERPT), TEXT_WIDTH));
  for (const [index, group] of view.groups.entries()) {
    const section = sectionBefore(view, index);
    if (section !== null) out.push('', section.toUpperCase(), '#'.repeat(section.length));
    const heading = wrap(group.title.toUpperCase(), TEXT_WIDTH);
    out.push('', ...heading, '='.repeat(Math.min(TEXT_WIDTH, Math.max(...heading.map((l) => l.length)))), '');
    for (const item of group.items) {
      out.push(...wrap(item.title, TEXT_WIDTH, '* ', '  '));
      const meta = [item.siteName ?? item.domain, item.readingTime, item.publishedLabel].filter(
        (s): s is string => s !== null && s !== '',
      );
      if (meta.length > 0) out.push(...wrap(meta.join(' · '), TEXT_WIDTH, '  ', '  '));
      const summary = excerptOfText(item.excerpt, EMAIL_EXCERPT);
      if (summary !== '') out.push(...wrap(summary, TEXT_WIDTH, '  ', '  '));
      if (item.href !== null) out.push(`  ${item.href}`);
      // One line, never wrapped: other tools read the sources of an entry from it. Indented as its entry.
      if (item.alsoIn.length > 0) {
        const sources = t.list(
          item.alsoIn.map((a) => (a.href === null ? a.title : `${a.title} <${a.href}>`)),
        );
        out.push(`  ${t.t('digest.item.alsoIn', { sources })}`);
      }
      if (item.readHref !== null) out.push(`  ${linkLine(t.t('digest.item.read'), item.readHref)}`);
      if (item.keepHref !== null) out.push(`  ${linkLine(t.t('digest.item.keep'), item.keepHref)}`);
      out.push('');
    }
    if (group.more !== null) {
      const label = t.t('digest.group.more', { count: group.more.count, title: group.title });
      out.push(linkLine(label, group.more.href), '');
    }
    if (group.actions !== null) {
      const source = sourceWord(group);
      out.push(`  ${linkLine(t.t('digest.action.fewer', { source }), group.actions.fewer)}`);
      out.push(`  ${linkLine(t.t('digest.action.more', { source }), group.actions.more)}`);
      if ('unmute' in group.actions) {
        const unmute = t.t('digest.action.unmute');
        const label =
          group.muted === null
            ? unmute
            : t.t('digest.action.mutedUntil', { unmute, until: group.muted.label });
        out.push(`  ${linkLine(label, group.actions.unmute)}`, '');
      } else out.push(`  ${linkLine(t.t('digest.action.mute'), group.actions.mute)}`, '');
    }
  }
  out.push(
    ...resurfacedText(view, EMAIL_EXCERPT, (text, first, rest) => wrap(text, TEXT_WIDTH, first, rest)),
  );
  const more = moreLine(view);
  if (more !== '')
    out.push(...wrap(t.t('digest.more.readWholeText', { more }), TEXT_WIDTH), view.links.web, '');
  out.push('-- ');
  out.push(linkLine(t.t('digest.footer.web'), view.links.web));
  out.push(linkLine(t.t('digest.footer.epubText'), view.links.epub));
  out.push(linkLine(t.t('digest.footer.feeds'), view.links.feeds));
  out.push(linkLine(t.t('digest.footer.settings'), view.links.settings));
  if (view.links.unsubscribe !== undefined) {
    out.push(linkLine(t.t('digest.footer.unsubscribe'), view.links.unsubscribe));
  }
  out.push(
    ...wrap(
      t.t('digest.footer.whyText', { zone: view.account.timezone, name: view.account.name }),
      TEXT_WIDTH,
    ),
  );
  return `${out.join('\n')}\n`;
}

/**
 * Words of `text` in lines of at most `width` characters, the first starting with `first` and the rest with
 * `rest`. A word longer than a line (a URL) gets a line of its own and is never cut.
 */
export function wrap(text: string, width: number, first = '', rest = first): string[] {
  // Text from the view is already folded (single spaces, trimmed): no need to split it into words.
  const folded = UNFOLDED.test(text)
    ? text
        .split(BREAKS)
        .filter((w) => w !== '')
        .join(' ')
    : text;
  if (folded === '') return [];
  if (SURROGATE.test(folded) || SURROGATE.test(first) || SURROGATE.test(rest)) {
    return wrapWords(folded.split(' '), width, first, rest);
  }
  const lines: string[] = [];
  let prefix = first;
  let left = folded;
  for (;;) {
    const room = width - prefix.length;
    if (left.length <= room) break;
    // The last space that leaves the line within its room, else (a word longer than a line) the first one.
    let cut = room > 0 ? left.lastIndexOf(' ', room) : -1;
    if (cut <= 0) cut = left.indexOf(' ');
    if (cut === -1) break;
    lines.push(prefix + left.slice(0, cut));
    left = left.slice(cut + 1);
    prefix = rest;
  }
  lines.push(prefix + left);
  return lines;
}

/** The same, word by word, counting characters rather than UTF-16 units (for text with astral characters). */
function wrapWords(words: string[], width: number, first: string, rest: string): string[] {
  const lines: string[] = [];
  let line = first;
  let length = codePoints(first);
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

/**
 * Whitespace other than single spaces between words. A narrow no-break space (U+202F) is none: French puts
 * it before `:` `;` `?` `!` and inside « », and a line never starts with the mark it holds to its word.
 */
const UNFOLDED = /^\s|\s$|\s\s|[^\S \u202f]/;
/** Where a line may break: any whitespace but the narrow no-break space. */
const BREAKS = /[^\S\u202f]+/;
const SURROGATE = /[\ud800-\udfff]/;
