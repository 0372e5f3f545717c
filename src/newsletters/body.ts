import { capHtml } from '../lib/capHtml.js';
import { cleanUrl } from '../lib/cleanUrl.js';
import { escapeHtml } from '../lib/escape.js';
import { paragraphsOfHtml, paragraphsOfText } from '../lib/paragraphs.js';
import { MAX_HTML_CHARS, MAX_TEXT_CHARS } from '../lib/readerLimits.js';
import { sanitizeArticle } from '../lib/sanitize.js';
import { isHidden } from '../lib/trackingPixels.js';
import { htmlToText, truncate } from '../lib/text.js';
import { countWords, readingMinutes } from '../lib/words.js';
import { MAX_BODY_PARSE_CHARS, MAX_HTML_NESTING, MAX_SUMMARY_CHARS } from './limits.js';

/**
 * A newsletter's body as Tidings keeps it, made once on arrival (in the parsing thread): the page
 * sanitiser's HTML (lib/sanitize.ts: no script, no style, no form, links http(s) or mailto only) without
 * what only tracks the reader — tracking pixels (images drawn 1×1 or smaller, hidden ones, and those of
 * known open-tracking hosts) and the tracking parameters of every link (lib/cleanUrl.ts, as saved links
 * lose them) — and without the elements the sender hid (a preheader, say); its text for search, and its
 * summary: its first real sentences, past the "View in browser" boilerplate.
 */

export interface NewsletterBody {
  /** Sanitised reader HTML (capped, MAX_HTML_CHARS); null when the message has no text. */
  html: string | null;
  /** Its plain text (capped, MAX_TEXT_CHARS), what search reads; null when none. */
  text: string | null;
  /** The first real sentences, at most MAX_SUMMARY_CHARS; null when none. */
  summary: string | null;
  /** The message's "View in browser" link, tracking parameters dropped; null when it has none. */
  webVersion: string | null;
  wordCount: number;
  readingMinutes: number;
}

/** The wording of a newsletter's boilerplate lines: never its summary. */
const BOILERPLATE = [
  /\bview (?:this |the |it |our )?(?:e-?mail |message |post |newsletter |issue |version )?(?:in|on|with) (?:a |your |the )?(?:web ?)?browser\b/i,
  /\b(?:view|read|open) (?:it |this |the )?(?:e-?mail |post |issue |newsletter )?online\b/i,
  /\b(?:view|read|open) (?:it |this |the )?(?:e-?mail |post |issue |newsletter )?on the web\b/i,
  /\bweb version\b/i,
  /\bopen in (?:the )?app\b/i,
  /\bhaving trouble (?:viewing|reading|seeing)\b/i,
  /\b(?:e-?mail|message) (?:is )?not displaying\b/i,
  /\bunsubscribe\b/i,
  /\b(?:forward(?:ed)?|share) (?:this|it) (?:e-?mail|with a friend|to a friend)\b/i,
  /\bforwarded this (?:e-?mail|newsletter|message)\b/i,
  /\badd (?:us|[^ ]+@[^ ]+) to your (?:address book|contacts)\b/i,
  /\b(?:update|manage) (?:your )?(?:e-?mail )?preferences\b/i,
  /\bcopyright\b|©/i,
];

/** A paragraph shorter than this is a heading, a byline or a button, not the first real sentences. */
const SENTENCE_MIN = 40;

/** The link of a "View in browser" anchor (as sanitised: absolute, cleaned). */
const ANCHOR = /<a\b[^>]*\bhref="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi;
const WEB_VERSION = BOILERPLATE.slice(0, 4);

function webVersionOf(html: string): string | null {
  for (const m of html.matchAll(ANCHOR)) {
    const text = htmlToText(m[2] ?? '');
    const href = htmlToText(m[1] ?? '');
    if (/^https?:\/\//i.test(href) && WEB_VERSION.some((re) => re.test(text))) return href;
  }
  return null;
}

/** The real paragraphs (past the boilerplate), joined by spaces until they reach MAX_SUMMARY_CHARS. */
function realText(paragraphs: readonly string[]): string {
  let text = '';
  for (const p of paragraphs) {
    if (p.length < SENTENCE_MIN || BOILERPLATE.some((re) => re.test(p))) continue;
    text = text === '' ? p : `${text} ${p}`;
    if (text.length >= MAX_SUMMARY_CHARS) break;
  }
  return text;
}

/** The summary of realText: null when empty; whole sentences when the first ones fit, else cut on a word. */
function cutSummary(text: string): string | null {
  if (text === '') return null;
  if (text.length <= MAX_SUMMARY_CHARS) return text;
  const cut = text.slice(0, MAX_SUMMARY_CHARS);
  const end = Math.max(cut.lastIndexOf('. '), cut.lastIndexOf('! '), cut.lastIndexOf('? '));
  return end >= SENTENCE_MIN ? cut.slice(0, end + 1) : truncate(text, MAX_SUMMARY_CHARS);
}

/** The first real sentences of the paragraphs: those past the boilerplate, up to MAX_SUMMARY_CHARS. */
export function summaryOf(paragraphs: readonly string[]): string | null {
  return cutSummary(realText(paragraphs));
}

/** The characters of paragraphs read first for a summary; nearly always enough (see summaryOfHtml). */
const SUMMARY_READ_CHARS = 4096;

/**
 * summaryOf the HTML's paragraphs, reading only its first SUMMARY_READ_CHARS of text when their real
 * paragraphs reach MAX_SUMMARY_CHARS already: paragraphsOfHtml with a limit gives the first paragraphs
 * of what it gives without, and realText stops there anyway. Else (a short message, or one of
 * boilerplate and headings first) as far as MAX_TEXT_CHARS. Reading the whole body for 300 characters
 * was a seventh of a newsletter's parse (bench:inbound).
 */
function summaryOfHtml(html: string): string | null {
  const first = realText(paragraphsOfHtml(html, SUMMARY_READ_CHARS).split('\n'));
  if (first.length >= MAX_SUMMARY_CHARS) return cutSummary(first);
  return summaryOf(paragraphsOfHtml(html, MAX_TEXT_CHARS).split('\n'));
}

/** A text/plain body as HTML paragraphs (escaped), for a message without an HTML part. */
function textAsHtml(text: string): string {
  return paragraphsOfText(text)
    .split('\n')
    .filter((p) => p !== '')
    .map((p) => `<p>${escapeHtml(p)}</p>`)
    .join('\n');
}

/**
 * The body as kept, from the message's HTML part (else its text part), and the names of its attachments,
 * listed at its end (the files are not kept). Never throws on any input.
 */
export function newsletterBody(
  part: { html: string | null; text: string | null },
  attachments: readonly string[] = [],
): NewsletterBody {
  const source =
    part.html !== null && part.html.trim() !== ''
      ? part.html
      : part.text !== null
        ? textAsHtml(part.text.slice(0, MAX_BODY_PARSE_CHARS))
        : '';
  const bounded = source.length > MAX_BODY_PARSE_CHARS ? source.slice(0, MAX_BODY_PARSE_CHARS) : source;
  const sanitized = sanitizeArticle(bounded, null, {
    hidden: isHidden,
    link: cleanUrl,
    nestingLimit: MAX_HTML_NESTING,
  });
  const listed = attachments.length === 0 ? '' : attachmentList(attachments);
  const capped = capHtml(sanitized, MAX_HTML_CHARS - listed.length).html + listed;
  const text = htmlToText(capped);
  const words = countWords(text);
  return {
    html: text === '' ? null : capped,
    text: text === '' ? null : truncate(text, MAX_TEXT_CHARS),
    summary: summaryOfHtml(sanitized),
    webVersion: webVersionOf(sanitized),
    wordCount: words,
    readingMinutes: readingMinutes(words),
  };
}

/** "Attachments (not kept): a.pdf, b.png": the item's page lists them. */
function attachmentList(names: readonly string[]): string {
  const items = names.map((n) => `<li>${escapeHtml(n)}</li>`).join('');
  return `<section><h2>Attachments (not kept)</h2><ul>${items}</ul></section>`;
}
