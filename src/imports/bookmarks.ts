import { Parser } from 'htmlparser2';
import { checkNesting } from './markup.js';
import {
  type ImportedLink,
  type ParsedFile,
  type ParsedRow,
  checkRowCount,
  emptyLink,
  splitTags,
  fromUnixSeconds,
} from './record.js';

export const looksLikeBookmarks = (text: string): boolean =>
  /<!DOCTYPE\s+NETSCAPE-Bookmark-file-1>/i.test(text.slice(0, 4096));

/**
 * Netscape bookmark HTML, as every browser exports it: `<DL><DT><H3>Folder</H3><DL><DT><A HREF ADD_DATE
 * TAGS>` nested. Each folder a link is in (outermost first) is a tag, except the browser's toolbar folder
 * (PERSONAL_TOOLBAR_FOLDER); TAGS (comma-separated) are tags too; ADD_DATE (Unix seconds) is the saved
 * date. Bookmarks are unread. Links that are not http(s) (javascript:, place:) are bad rows.
 *
 * The `<p>` browsers write after each `<DL>` and `</DL>` are dropped first: they mark nothing, and an HTML
 * parser nests every later `<DT>` of the list inside the one after a folder's `</DL>`, so that a list of
 * 500 folders would nest 1,000 levels deep. Without them a file nests two levels a folder within folders;
 * one that nests deeper than IMPORT_LIMITS.nesting is refused before it is parsed.
 */
export function parseBookmarks(text: string): ParsedFile {
  const html = text.replace(/<\/?p\s*>/gi, '');
  checkNesting(html);
  const rows: ParsedRow[] = [];
  /** The folders open, null for a list without a folder name (the top one, the toolbar). */
  const folders: (string | null)[] = [];
  let heading: { name: string; toolbar: boolean } | null = null;
  let pending: string | null = null;
  let open: ImportedLink | null = null;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'h3') heading = { name: '', toolbar: attrs.personal_toolbar_folder === 'true' };
        else if (name === 'dl') {
          folders.push(pending);
          pending = null;
        } else if (name === 'a') {
          const n = rows.length + 1;
          checkRowCount(n);
          const href = attrs.href?.trim() ?? '';
          if (href === '') {
            rows.push({ where: `bookmark ${n}`, why: 'no HREF' });
            return;
          }
          const inFolders = folders.filter((f): f is string => f !== null);
          open = {
            ...emptyLink(href),
            savedAt: fromUnixSeconds(attrs.add_date),
            tags: [...inFolders, ...splitTags(attrs.tags, ',')],
          };
        }
      },
      ontext(text) {
        if (heading !== null) heading.name += text;
        if (open !== null) open.title += text;
      },
      onclosetag(name) {
        if (name === 'h3' && heading !== null) {
          pending = heading.toolbar ? null : heading.name.trim() || null;
          heading = null;
        } else if (name === 'dl') folders.pop();
        else if (name === 'a' && open !== null) {
          rows.push({ where: `bookmark ${rows.length + 1}`, link: open });
          open = null;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  return { format: 'bookmarks', rows };
}
