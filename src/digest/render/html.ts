import { type LeadImage, thumbnailSize } from '../../lib/display.js';
import { type DigestGroup, type DigestItemView, type DigestView, excerptOfText } from '../view.js';
import {
  countsLine,
  digestSubject,
  entriesLine,
  esc,
  moreLine,
  preheaderText,
  sectionBefore,
  shownLine,
  sourceWord,
} from './common.js';
import { resurfacedRows } from './resurfaced.js';
import { COLORS, link, smallLink } from './style.js';

/*
 * One body markup serves the email, the web page and the Atom entries. Mail clients keep little CSS:
 * layout is tables with inline styles (Outlook's Word engine reads nothing else), widths are attributes,
 * and the only <style> block is the dark-mode one, which clients that drop it do without (most of those
 * darken the colours themselves). Every class in it is prefixed "td-".
 *
 * Escaping: every string from the view goes through esc(); the only hrefs are an item's `href` (already
 * checked to be absolute http(s)), its `readHref` and the instance's own links; the only image sources are
 * lead images (checked to be absolute http(s)), drawn at a fixed size so the layout holds without them.
 */

const FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";

/** The colour-scheme declarations and the dark palette, for the email and the web page alike. */
const HEAD = `<meta name="color-scheme" content="light dark">
<meta name="supported-color-schemes" content="light dark">
<style>
:root { color-scheme: light dark; supported-color-schemes: light dark; }
body { margin: 0; padding: 0; -webkit-text-size-adjust: 100%; }
a.td-title:hover { text-decoration: underline !important; }
@media (prefers-color-scheme: dark) {
  .td-page { background-color: #101214 !important; }
  .td-card { background-color: #1a1d21 !important; }
  .td-text { color: #e6e8eb !important; }
  .td-muted { color: #9aa4af !important; }
  .td-link { color: #8ab4f8 !important; }
  .td-rule { border-color: #2d3238 !important; }
}
[data-ogsc] .td-text { color: #e6e8eb !important; }
[data-ogsc] .td-muted { color: #9aa4af !important; }
[data-ogsc] .td-link { color: #8ab4f8 !important; }
[data-ogsb] .td-page { background-color: #101214 !important; }
[data-ogsb] .td-card { background-color: #1a1d21 !important; }
@media (max-width: 620px) { .td-pad { padding-left: 16px !important; padding-right: 16px !important; } }
</style>`;

export type BodyVariant = 'email' | 'web' | 'atom';

/**
 * The digest's markup, a table 600 px wide at most: header (date, counts), the groups, the footer links.
 * The email and the web page wrap it in a document; an Atom entry carries it as it is. A view of part of
 * the digest says so: the web page has links to its other pages above and below the items, the email and
 * the Atom entry end with how many more there are and a link to the web page.
 */
export function digestBodyHtml(view: DigestView, variant: BodyVariant): string {
  const pages = variant === 'web' && view.page.count > 1 ? [pager(view)] : [];
  const more = variant !== 'web' && moreLine(view) !== '' ? [moreRow(view, variant)] : [];
  const around = variant === 'web' ? [digestsNav(view)] : [];
  const rows = [
    ...around,
    header(view, variant),
    ...pages,
    ...view.groups.map((g, i) => group(view, g, variant, sectionBefore(view, i))),
    ...resurfacedRows(view, variant === 'email' ? EMAIL_EXCERPT : null),
    ...pages,
    ...more,
    ...around,
    footer(view, variant),
  ];
  return `<table role="presentation" class="td-card" width="600" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:600px;background-color:${COLORS.card};border-radius:8px;font-family:${FONT};">
${rows.join('\n')}
</table>`;
}

/** The HTML part of the digest email: a whole document, with a preheader for the inbox preview. */
export function renderEmailHtml(view: DigestView): string {
  // Invisible filler after the preheader keeps clients from running the body's first words into the preview.
  const filler = '&#847;&zwnj;&nbsp;'.repeat(60);
  return `<!DOCTYPE html>
<html ${langAttributes(view)}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Type" content="text/html; charset=utf-8">
${HEAD}
<title>${esc(digestSubject(view))}</title>
</head>
<body class="td-page" style="margin:0;padding:0;background-color:${COLORS.page};">
<div class="td-preheader" style="display:none;max-height:0;max-width:0;overflow:hidden;mso-hide:all;font-size:1px;line-height:1px;opacity:0;color:${COLORS.page};">${esc(preheaderText(view))}${filler}</div>
${pageTable(view, 'email')}
</body>
</html>
`;
}

/** The digest as a web page (/digests/:id): the email's markup in a document of its own. */
export function renderWebPage(view: DigestView): string {
  return `<!DOCTYPE html>
<html ${langAttributes(view)}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
${HEAD}
<title>${esc(webTitle(view))}</title>
</head>
<body class="td-page" style="margin:0;padding:0;background-color:${COLORS.page};">
<main>
${pageTable(view, 'web')}
</main>
</body>
</html>
`;
}

/** `lang` (and `dir` for a right-to-left language) of the document's root. */
function langAttributes(view: DigestView): string {
  return `lang="${esc(view.locale.lang)}"${view.locale.dir === 'rtl' ? ' dir="rtl"' : ''}`;
}

function webTitle(view: DigestView): string {
  const { number, count } = view.page;
  return count > 1
    ? view.locale.t('digest.titlePaged', { date: view.dateLabel, page: number, pages: count })
    : view.locale.t('digest.title', { date: view.dateLabel });
}

/** The full-width background table that centres the card (a ghost table holds Outlook to 600 px). */
function pageTable(view: DigestView, variant: BodyVariant): string {
  return `<table role="presentation" class="td-page" width="100%" cellpadding="0" cellspacing="0" border="0" style="width:100%;background-color:${COLORS.page};">
<tr><td align="center" style="padding:24px 8px;">
<!--[if mso]><table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0"><tr><td><![endif]-->
${digestBodyHtml(view, variant)}
<!--[if mso]></td></tr></table><![endif]-->
</td></tr>
</table>`;
}

/** An email's summaries are one line on a phone (about this many characters); the web page shows more. */
export const EMAIL_EXCERPT = 140;

function header(view: DigestView, variant: BodyVariant): string {
  const entries =
    variant !== 'web' && view.laidOut
      ? `\n<p class="td-muted" style="margin:2px 0 0 0;font-size:15px;line-height:22px;color:${COLORS.muted};">${esc(entriesLine(view, EMAIL_EXCERPT))}</p>`
      : '';
  return `<tr><td class="td-pad" style="padding:28px 32px 8px 32px;">
<p class="td-muted" style="margin:0 0 4px 0;font-size:13px;line-height:18px;letter-spacing:0.04em;text-transform:uppercase;color:${COLORS.muted};">${esc(view.locale.t('brand'))}</p>
<h1 class="td-text" style="margin:0;font-size:24px;line-height:30px;font-weight:700;color:${COLORS.text};">${esc(view.locale.capitalized(view.dateLabel))}</h1>
<p class="td-muted" style="margin:6px 0 0 0;font-size:15px;line-height:22px;color:${COLORS.muted};">${esc(countsLine(view))}</p>${entries}
</td></tr>`;
}

function group(view: DigestView, g: DigestGroup, variant: BodyVariant, section: string | null): string {
  const t = view.locale;
  const source = sourceWord(g);
  const opening =
    section === null
      ? []
      : [
          `<tr><td class="td-pad" style="padding:32px 32px 0 32px;">
<h2 class="td-text" style="margin:0;font-size:20px;line-height:26px;font-weight:700;color:${COLORS.text};">${esc(section)}</h2>
</td></tr>`,
        ];
  const heading = `<tr><td class="td-pad" style="padding:24px 32px 4px 32px;">
<h2 class="td-muted" dir="auto" style="margin:0;font-size:13px;line-height:18px;font-weight:700;letter-spacing:0.04em;text-transform:uppercase;color:${COLORS.muted};">${esc(g.title)}</h2>
</td></tr>`;
  const small = `margin:0;font-size:14px;line-height:20px;color:${COLORS.muted};`;
  const more =
    g.more === null || variant === 'web'
      ? []
      : [
          `<tr><td class="td-pad" style="padding:8px 32px;"><p class="td-muted" dir="auto" style="${small}">${link(g.more.href, esc(t.t('digest.group.more', { count: g.more.count, title: g.title })))}</p></td></tr>`,
        ];
  const actions =
    g.actions === null
      ? []
      : [
          `<tr><td class="td-pad" style="padding:4px 32px 0 32px;"><p class="td-muted" style="${small}font-size:13px;">${[
            smallLink(g.actions.fewer, esc(t.t('digest.action.fewer', { source }))),
            smallLink(g.actions.more, esc(t.t('digest.action.more', { source }))),
            'unmute' in g.actions
              ? unmuteLink(view, g, g.actions.unmute)
              : smallLink(g.actions.mute, esc(t.t('digest.action.mute'))),
          ].join(' &nbsp;·&nbsp; ')}</p></td></tr>`,
        ];
  return [...opening, heading, ...g.items.map((i) => item(view, i, variant)), ...more, ...actions].join('\n');
}

/** "Unmute", with "(muted until …)" after it while the feed is muted. */
function unmuteLink(view: DigestView, g: DigestGroup, href: string): string {
  const unmute = smallLink(href, esc(view.locale.t('digest.action.unmute')));
  return g.muted === null
    ? unmute
    : view.locale.html('digest.action.mutedUntil', { unmute, until: g.muted.label }, ['unmute']);
}

/** Thumbnails fit a square this many pixels wide, in a cell of fixed width beside the text. */
export const THUMBNAIL_BOX = 96;

function item(view: DigestView, i: DigestItemView, variant: BodyVariant): string {
  const t = view.locale;
  const titleStyle = `font-size:17px;line-height:24px;font-weight:600;color:${COLORS.link};text-decoration:none;`;
  const title =
    i.href === null
      ? `<span class="td-text" dir="auto" style="font-size:17px;line-height:24px;font-weight:600;color:${COLORS.text};">${esc(i.title)}</span>`
      : `<a class="td-link td-title" href="${esc(i.href)}" dir="auto" style="${titleStyle}">${esc(i.title)}</a>`;
  const meta = metaParts(i);
  const metaLine =
    meta.length === 0
      ? ''
      : `\n<p class="td-muted" style="margin:2px 0 0 0;font-size:13px;line-height:18px;color:${COLORS.muted};">${meta.join(' · ')}</p>`;
  const summary = variant === 'email' ? excerptOfText(i.excerpt, EMAIL_EXCERPT) : i.excerpt;
  const excerpt =
    summary === ''
      ? ''
      : `\n<p class="td-text" dir="auto" style="margin:6px 0 0 0;font-size:15px;line-height:22px;color:${COLORS.text};">${esc(summary)}</p>`;
  const small = `margin:6px 0 0 0;font-size:14px;line-height:20px;color:${COLORS.muted};`;
  const also =
    i.alsoIn.length === 0 ? '' : `\n<p class="td-muted" dir="auto" style="${small}">${alsoIn(view, i)}</p>`;
  const seen =
    i.seenIn === null || variant === 'email'
      ? ''
      : `\n<p class="td-muted" style="${small}">${esc(t.t('digest.item.seen'))}</p>`;
  // "Read it here" and "Keep for tomorrow" share one line: every byte of an entry counts against the clip.
  const itemLinks = [
    ...(i.readHref === null ? [] : [link(i.readHref, esc(t.t('digest.item.read')))]),
    ...(i.keepHref === null ? [] : [smallLink(i.keepHref, esc(t.t('digest.item.keep')))]),
  ];
  const read =
    itemLinks.length === 0
      ? ''
      : `\n<p style="margin:6px 0 0 0;font-size:14px;line-height:20px;">${itemLinks.join(' · ')}</p>`;
  const text = `${title}${metaLine}${excerpt}${also}${seen}${read}`;
  const anchor = variant === 'web' && i.number > 0 ? ` id="item-${i.number}"` : '';
  return `<tr${anchor}><td class="td-pad" style="padding:12px 32px;">
<div class="td-rule" style="border-top:1px solid ${COLORS.rule};padding-top:12px;word-wrap:break-word;overflow-wrap:anywhere;">
${i.image === null ? text : withThumbnail(i, i.image, text, view.locale.dir)}
</div>
</td></tr>`;
}

/** "Also in: A, B" (a contract line), each source linked to its own item when it has one. */
function alsoIn(view: DigestView, i: DigestItemView): string {
  const marks = i.alsoIn.map((_, n) => `\uE002${n}\uE003`);
  const html = view.locale.html('digest.item.alsoIn', { sources: view.locale.list(marks) });
  return html.replace(/\uE002(\d+)\uE003/g, (_, n: string) => {
    const a = i.alsoIn[Number(n)];
    return a === undefined ? '' : a.href === null ? esc(a.title) : smallLink(a.href, esc(a.title));
  });
}

/** Site (else domain) · reading time · published time, escaped. */
function metaParts(i: DigestItemView): string[] {
  const parts: string[] = [];
  const where = i.siteName ?? i.domain;
  if (where !== '') parts.push(esc(where));
  if (i.readingTime !== null) parts.push(esc(i.readingTime));
  if (i.publishedLabel !== null && i.published !== null) {
    parts.push(`<time datetime="${esc(i.published)}">${esc(i.publishedLabel)}</time>`);
  }
  return parts;
}

/**
 * The text with the thumbnail beside it, in a cell of fixed width: while a mail client blocks remote
 * images, the cell keeps its size and the alt text, and the text does not move.
 */
function withThumbnail(i: DigestItemView, image: LeadImage, text: string, dir: 'ltr' | 'rtl'): string {
  const { width, height } = thumbnailSize(image, THUMBNAIL_BOX);
  const img = `<img src="${esc(image.url)}" width="${width}" height="${height}" alt="${esc(image.alt)}" style="display:block;border:0;width:${width}px;height:${height}px;border-radius:4px;font-size:11px;line-height:14px;color:${COLORS.muted};">`;
  const linked = i.href === null ? img : `<a href="${esc(i.href)}" style="text-decoration:none;">${img}</a>`;
  const cell = THUMBNAIL_BOX + 16;
  // Mail clients read few logical properties: the gap is on the side the text is, by the digest's direction.
  return `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="width:100%;"><tr>
<td valign="top" style="vertical-align:top;">
${text}
</td>
<td class="td-thumb" valign="top" width="${cell}" style="width:${cell}px;min-width:${cell}px;${dir === 'rtl' ? 'padding-right' : 'padding-left'}:16px;vertical-align:top;">${linked}</td>
</tr></table>`;
}

/** Where a page of the web page sits, with links to the pages before and after it. */
function pager(view: DigestView): string {
  const { number, count, previous, next } = view.page;
  const parts = [
    esc(view.locale.t('digest.pager', { shown: shownLine(view), page: number, pages: count })),
    ...(previous === null ? [] : [link(previous, esc(view.locale.t('digest.pager.previous')))]),
    ...(next === null ? [] : [link(next, esc(view.locale.t('digest.pager.next')))]),
  ];
  return `<tr><td class="td-pad" style="padding:16px 32px 0 32px;">
<nav aria-label="${esc(view.locale.t('digest.pager.label'))}"><p class="td-muted" style="margin:0;font-size:14px;line-height:20px;color:${COLORS.muted};">${parts.join(' &nbsp;·&nbsp; ')}</p></nav>
</td></tr>`;
}

/** The web page's way back to the archive and on to the digests built before and after this one. */
function digestsNav(view: DigestView): string {
  const { archive, previousDigest, nextDigest } = view.links;
  const parts = [
    link(archive, esc(view.locale.t('digest.nav.all'))),
    ...(previousDigest === null ? [] : [link(previousDigest, esc(view.locale.t('digest.nav.previous')))]),
    ...(nextDigest === null ? [] : [link(nextDigest, esc(view.locale.t('digest.nav.next')))]),
  ];
  return `<tr><td class="td-pad" style="padding:16px 32px 0 32px;">
<nav aria-label="${esc(view.locale.t('digest.nav.label'))}"><p class="td-muted" style="margin:0;font-size:14px;line-height:20px;color:${COLORS.muted};">${parts.join(' &nbsp;·&nbsp; ')}</p></nav>
</td></tr>`;
}

/** Under an email or Atom entry that shows only the digest's first items: how many more, and where. */
function moreRow(view: DigestView, variant: 'email' | 'atom'): string {
  return `<tr><td class="td-pad" style="padding:20px 32px 0 32px;">
<p class="td-text" style="margin:0;font-size:15px;line-height:22px;color:${COLORS.text};">${view.locale.html('digest.more.readWhole', { more: moreLine(view, variant), link: link(view.links.web, esc(view.locale.t('digest.more.readWholeLink'))) }, ['link'])}</p>
</td></tr>`;
}

function footer(view: DigestView, variant: BodyVariant): string {
  const t = view.locale;
  const links = [
    ...(variant === 'web' ? [] : [link(view.links.web, esc(t.t('digest.footer.web')))]),
    link(view.links.epub, esc(t.t('digest.footer.epub'))),
    link(view.links.feeds, esc(t.t('digest.footer.feeds'))),
    link(view.links.settings, esc(t.t('digest.footer.settings'))),
    ...(variant === 'email' && view.links.unsubscribe !== undefined
      ? [link(view.links.unsubscribe, esc(t.t('digest.footer.unsubscribe')))]
      : []),
  ];
  const who = { name: view.account.name, zone: view.account.timezone };
  const why = t.html(variant === 'email' ? 'digest.footer.whyEmail' : 'digest.footer.whyWeb', who);
  return `<tr><td class="td-pad" style="padding:28px 32px 28px 32px;">
<div class="td-rule" style="border-top:1px solid ${COLORS.rule};padding-top:16px;">
<p class="td-muted" style="margin:0;font-size:13px;line-height:20px;color:${COLORS.muted};">${links.join(' &nbsp;·&nbsp; ')}</p>
<p class="td-muted" style="margin:8px 0 0 0;font-size:12px;line-height:18px;color:${COLORS.muted};">${why}</p>
</div>
</td></tr>`;
}
