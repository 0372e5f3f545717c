import { Parser } from 'htmlparser2';
import { type EntryFields, type ReadContext, plainText, toFeedItem } from './entry.js';
import type { FeedContent } from './model.js';
import { resolveHttpUrl } from './urls.js';

/**
 * Microsoft's Channel Definition Format (1997), which Python feedparser still reads: a `<CHANNEL HREF>`
 * with a `<TITLE>` and `<ABSTRACT>`, and `<ITEM HREF LASTMOD>`s with theirs. Element and attribute names
 * in any case. Read with htmlparser2 (no entities, no DTD), into the RSS shape: format "rss".
 */
export function fromCdf(text: string, ctx: ReadContext): FeedContent {
  const channel: Partial<Record<'href' | 'title', string>> = {};
  const items: { href?: string; lastmod?: string; title?: string; abstract?: string }[] = [];
  const open: string[] = [];
  let buffer = '';
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        open.push(name);
        buffer = '';
        const href = attributes['href'];
        if (name === 'item') items.push({ href, lastmod: attributes['lastmod'] });
        else if (name === 'channel' && open.length === 1) channel.href = href;
      },
      ontext(data) {
        buffer += data;
      },
      onclosetag(name) {
        open.pop();
        if (name !== 'title' && name !== 'abstract') return;
        const parent = open.at(-1);
        const item = items.at(-1);
        if (parent === 'item' && item !== undefined) item[name] ??= buffer;
        else if (parent === 'channel' && name === 'title') channel.title ??= buffer;
      },
    },
    { xmlMode: false, lowerCaseTags: true, lowerCaseAttributeNames: true, decodeEntities: true },
  );
  parser.end(text);
  const siteUrl = resolveHttpUrl(channel.href, ctx.url);
  const base = ctx.url ?? siteUrl;
  return {
    format: 'rss',
    title: plainText({ type: 'text', value: channel.title ?? '' }),
    siteUrl,
    feedUrl: null,
    ttlMinutes: null,
    items: items.map((item) => {
      const fields: EntryFields = {
        guidIsLink: true,
        link: item.href,
        base,
        title: item.title === undefined ? undefined : { type: 'text', value: item.title },
        updated: item.lastmod,
        summary: item.abstract === undefined ? undefined : { type: 'text', value: item.abstract },
        authors: [],
      };
      return toFeedItem(fields, ctx.now);
    }),
  };
}
