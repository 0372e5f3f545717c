import { decodeHTMLStrict } from 'entities';
import { Parser } from 'htmlparser2';
import { FeedParseError } from './model.js';

/**
 * The recovering read for a document that is not well-formed XML, as Python feedparser's "bozo" path
 * and the browsers' feed readers do: the result is well-formed XML with the same elements, or as close
 * as the damage allows. Run only after the strict parse failed.
 *
 * - HTML's named entities (`&nbsp;`, `&rsquo;`), which XML does not define, become the characters they
 *   name; a bare `&` (`?a=1&b=2`) or an unknown name becomes `&amp;`; `&#X41;` becomes `&#x41;`.
 * - htmlparser2 in XML mode then reads the elements, closing those left open (and a last `</rss`
 *   cut short), ignoring stray end tags, keeping CDATA sections; the document is written out again.
 *
 * Nothing is expanded beyond what the strict read already allowed: the DOCTYPE, checked and whose
 * internal entities were expanded before the strict parse, is dropped with the XML declaration and
 * comments. Linear in the document's length (elements nest at most MAX_DEPTH deep: htmlparser2's
 * stack costs its depth at each element); the size limit is the fetch's, as for any feed.
 */
export function recoverXml(text: string): string {
  return rewrite(mapReferences(text));
}

/** CDATA sections (left alone: an `&` in them is text) or a reference, or a bare ampersand. */
const CDATA_OR_REFERENCE =
  /<!\[CDATA\[[^]*?\]\]>|&(?:(#[xX][0-9a-fA-F]{1,6}|#\d{1,7}|[A-Za-z][A-Za-z0-9]{0,31});)?/g;
const XML_PREDEFINED = new Set(['amp', 'lt', 'gt', 'quot', 'apos']);

export function mapReferences(text: string): string {
  return text.replace(CDATA_OR_REFERENCE, (match: string, name: string | undefined) => {
    if (match.startsWith('<')) return match;
    if (name === undefined) return '&amp;';
    if (name.startsWith('#')) return `&#${name.slice(1).toLowerCase()};`;
    if (XML_PREDEFINED.has(name)) return match;
    const decoded = decodeHTMLStrict(match);
    // As character references: `&LT;` is HTML for "<", which must stay text.
    return decoded === match ? `&amp;${name};` : characterReferences(decoded);
  });
}

function characterReferences(text: string): string {
  let out = '';
  for (const char of text) out += `&#${String(char.codePointAt(0))};`;
  return out;
}

const TEXT_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
};
const escapeText = (s: string): string => s.replace(/[&<>]/g, (c) => TEXT_ESCAPES[c] ?? c);
const escapeAttribute = (s: string): string => s.replace(/[&<>"]/g, (c) => TEXT_ESCAPES[c] ?? c);

/** Deeper than any feed's elements and the HTML in them; a document nesting deeper is not recovered. */
export const MAX_DEPTH = 256;

/** Writes out what htmlparser2 reads, every element closed, text and attributes escaped again. */
function rewrite(text: string): string {
  const out: string[] = [];
  let depth = 0;
  let cdata = false;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        let tag = `<${name}`;
        for (const [key, value] of Object.entries(attributes)) tag += ` ${key}="${escapeAttribute(value)}"`;
        out.push(`${tag}>`);
        if (++depth > MAX_DEPTH) throw new FeedParseError(`elements nested more than ${MAX_DEPTH} deep`);
      },
      ontext(data) {
        // Text outside the root element (a PHP warning, stray characters) is no part of the feed.
        if (depth === 0) return;
        out.push(cdata ? data.replaceAll(']]>', ']]]]><![CDATA[>') : escapeText(data));
      },
      oncdatastart() {
        if (depth > 0) out.push('<![CDATA[');
        cdata = true;
      },
      oncdataend() {
        if (depth > 0) out.push(']]>');
        cdata = false;
      },
      onclosetag(name) {
        out.push(`</${name}>`);
        depth--;
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(text);
  return out.join('');
}
