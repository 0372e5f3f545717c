import { Parser } from 'htmlparser2';
import { checkNesting } from './markup.js';
import {
  type ImportedLink,
  type ParsedFile,
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
 * date. Bookmarks are unread. Links that are not http(s) (javascript:, place:) are bad rows. A file that
 * nests deeper than IMPORT_LIMITS.nesting is refused before it is parsed.
 */
export function parseBookmarks(html: string): ParsedFile {
  checkNesting(html);
  const out: ParsedFile = { format: 'bookmarks', links: [], bad: [] };
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
          const n = out.links.length + out.bad.length + 1;
          checkRowCount(n);
          const href = attrs.href?.trim() ?? '';
          if (href === '') {
            out.bad.push({ where: `bookmark ${n}`, why: 'no HREF' });
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
          out.links.push({ where: `bookmark ${out.links.length + out.bad.length + 1}`, link: open });
          open = null;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  return out;
}
