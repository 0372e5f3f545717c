import type { FastifyReply } from 'fastify';
import type { AccountId } from '../../accounts/authorize.js';
import { entryOf } from '../../accounts/readingEntries.js';
import { escapeHtml } from '../../lib/escape.js';
import { htmlToText } from '../../lib/text.js';
import { readingEntryEpub } from '../../accounts/readingEpub.js';
import { entryJson } from './entryJson.js';
import { WallabagError } from './errors.js';
import type { WallabagDeps } from './index.js';

/*
 * GET /api/entries/{id}/export.{html,txt,epub}: one entry as a file. HTML: a page with the title, the link
 * and the readable text (sanitised when it was stored); text: the same as plain text. Before the page is
 * read, the file has the title and the link only. EPUB: the OPDS catalogue's book of the entry
 * (accounts/readingEpub.ts), its images embedded; KOReader's wallabag plugin downloads this one.
 */

/** A file name from a title: letters, digits and a few marks; "entry" when nothing is left. */
function fileName(title: string, ext: string): string {
  const base = title
    .replace(/[^\p{L}\p{N} ._-]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 100);
  return `${base === '' ? 'entry' : base}.${ext}`;
}

const disposition = (name: string): string =>
  `attachment; filename="${name.replace(/[^\x20-\x7e]|"/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`;

export async function sendExport(
  reply: FastifyReply,
  deps: Pick<WallabagDeps, 'store' | 'epubImages' | 'epubBuilds'>,
  accountId: AccountId,
  id: number,
  format: string,
): Promise<FastifyReply> {
  const { store } = deps;
  const entry = await entryOf(store, accountId, id);
  const json = entryJson(entry, true);
  const title = String(json.title);
  const url = entry.row.url;
  const content = entry.row.content;
  if (format === 'html') {
    const lang = entry.row.language === null ? '' : ` lang="${escapeHtml(entry.row.language)}"`;
    const body = `<!DOCTYPE html>
<html${lang}>
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
</head>
<body>
<article>
<h1>${escapeHtml(title)}</h1>
<p><a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p>
${content ?? ''}
</article>
</body>
</html>
`;
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-disposition', disposition(fileName(title, 'html')))
      .header('content-security-policy', "default-src 'none'; img-src * data:; style-src 'unsafe-inline'")
      .send(body);
  }
  if (format === 'txt') {
    const text = entry.row.text ?? (content === null ? '' : htmlToText(content));
    return reply
      .header('content-type', 'text/plain; charset=utf-8')
      .header('content-disposition', disposition(fileName(title, 'txt')))
      .send(`${title}\n${url}\n\n${text}\n`);
  }
  if (format === 'epub') return sendEpub(reply, deps, accountId, id);
  throw new WallabagError(404, `export.${format} is not available`);
}

async function sendEpub(
  reply: FastifyReply,
  deps: Pick<WallabagDeps, 'store' | 'epubImages' | 'epubBuilds'>,
  accountId: AccountId,
  id: number,
): Promise<FastifyReply> {
  // Not made (builds busy, or failed): http/errors.ts decides the status, sendWallabagError the shape.
  const epub = await readingEntryEpub(
    { store: deps.store, images: deps.epubImages, epubBuilds: deps.epubBuilds },
    accountId,
    id,
  );
  if (epub === null) throw new WallabagError(404, 'Entry not found');
  return reply
    .header('content-type', 'application/epub+zip')
    .header('content-disposition', disposition(epub.fileName))
    .send(Buffer.from(epub.bytes));
}
