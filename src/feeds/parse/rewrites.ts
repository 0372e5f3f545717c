import { escapeHtml } from '../../lib/escape.js';

/**
 * Rewrites of a document's text for the few old shapes feedsmith does not read, each run only when the
 * document shows that shape (a prefixed root, a `mode="base64"` attribute), so other feeds pay nothing.
 */

/**
 * RSS whose elements all sit in a namespace bound to a prefix, without a default namespace
 * (`<r:rss xmlns:r="http://backend.userland.com/rss2"><r:channel>…`): the prefix is dropped from the
 * element names, so that the channel and its items are RSS's own.
 */
export function unprefixRoot(text: string, root: string): string {
  const colon = root.indexOf(':');
  if (colon === -1) return text;
  const prefix = root.slice(0, colon).replace(/[.]/g, '\\.');
  return text.replace(new RegExp(`<(/?)${prefix}:`, 'g'), '<$1');
}

/** An element with `mode="base64"` (Atom 0.3) and only text in it; groups: name, attributes, quote, attributes, text. */
const BASE64_ELEMENT = /<([\w:.-]+)(\s[^>]*?)?\smode\s*=\s*(["'])base64\3([^>]*)>([^<]*)<\/\1\s*>/g;
const TYPE_ATTRIBUTE = /\stype\s*=\s*(["'])[^"']*\1/g;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Atom 0.3's `mode="base64"` text (titles, content, summaries): decoded, and written back as escaped
 * HTML (what such a text was in practice; a plain one reads the same). Text that is not base64 stays.
 */
export function decodeBase64Modes(text: string): string {
  if (!/\smode\s*=\s*["']base64["']/.test(text)) return text;
  return text.replace(
    BASE64_ELEMENT,
    (all: string, name: string, before: string | undefined, _q: string, after: string, body: string) => {
      const decoded = decodeBase64(body);
      if (decoded === null) return all;
      const attributes = `${before ?? ''}${after}`.replace(TYPE_ATTRIBUTE, '').replace(/\/$/, '');
      return `<${name}${attributes} type="html">${escapeHtml(decoded)}</${name}>`;
    },
  );
}

/** The UTF-8 text base64 stands for, whitespace ignored; null when it is not base64. */
export function decodeBase64(value: string): string | null {
  const compact = value.replace(/\s+/g, '');
  if (compact === '' || compact.length % 4 !== 0 || !BASE64.test(compact)) return null;
  return Buffer.from(compact, 'base64').toString('utf8');
}
