import type { ResurfacedItemView } from '../resurfacedView.js';
import { excerptOfText } from '../excerpt.js';
import type { DigestView } from '../view.js';
import { esc } from './common.js';
import { COLORS, link, smallLink } from './style.js';

/*
 * The section "From your reading list" (digest/resurface.ts) in the digest's markup (the email, the web
 * page, the Atom entry: after the groups, before the footer) and in the plain-text email. Without items
 * there is no section at all.
 */

export const RESURFACED_TITLE = 'From your reading list';

/** "example.org · saved 3 years ago · 6 min read · tagged rust, web" (plain text). */
export function resurfacedMeta(r: ResurfacedItemView): string[] {
  return [
    r.site,
    r.savedLabel,
    r.readingTime ?? '',
    r.tags.length === 0 ? '' : `tagged ${r.tags.join(', ')}`,
  ].filter((s) => s !== '');
}

/** The section's rows of the digest's table; `excerptLimit` the summaries' length (the email's is short). */
export function resurfacedRows(view: DigestView, excerptLimit: number | null): string[] {
  if (view.resurfaced.length === 0) return [];
  const heading = `<tr><td class="td-pad" style="padding:24px 32px 4px 32px;">
<h2 class="td-muted" style="margin:0;font-size:13px;line-height:18px;font-weight:700;letter-spacing:0.04em;text-transform:uppercase;color:${COLORS.muted};">${RESURFACED_TITLE}</h2>
</td></tr>`;
  return [heading, ...view.resurfaced.map((r) => row(r, excerptLimit))];
}

function row(r: ResurfacedItemView, excerptLimit: number | null): string {
  const title =
    r.href === null
      ? `<span class="td-text" dir="auto" style="font-size:16px;line-height:22px;font-weight:600;color:${COLORS.text};">${esc(r.title)}</span>`
      : `<a class="td-link td-title" href="${esc(r.href)}" dir="auto" style="font-size:16px;line-height:22px;font-weight:600;color:${COLORS.link};text-decoration:none;">${esc(r.title)}</a>`;
  const meta = resurfacedMeta(r).map((part) =>
    part === r.savedLabel ? `<time datetime="${esc(r.savedAt)}">${esc(part)}</time>` : esc(part),
  );
  const summary = excerptLimit === null ? r.excerpt : excerptOfText(r.excerpt, excerptLimit);
  const excerpt =
    summary === ''
      ? ''
      : `\n<p class="td-text" dir="auto" style="margin:6px 0 0 0;font-size:15px;line-height:22px;color:${COLORS.text};">${esc(summary)}</p>`;
  const actions = [
    ...(r.readHref === null ? [] : [link(r.readHref, 'Read it here')]),
    ...(r.archived ? ['Archived'] : r.archiveHref === null ? [] : [smallLink(r.archiveHref, 'Archive')]),
    ...(r.archived || r.tomorrowHref === null ? [] : [smallLink(r.tomorrowHref, 'Keep for tomorrow')]),
  ];
  const links =
    actions.length === 0
      ? ''
      : `\n<p style="margin:6px 0 0 0;font-size:14px;line-height:20px;">${actions.join(' · ')}</p>`;
  return `<tr><td class="td-pad" style="padding:12px 32px;">
<div class="td-rule" style="border-top:1px solid ${COLORS.rule};padding-top:12px;word-wrap:break-word;overflow-wrap:anywhere;">
${title}
<p class="td-muted" style="margin:2px 0 0 0;font-size:13px;line-height:18px;color:${COLORS.muted};">${meta.join(' · ')}</p>${excerpt}${links}
</div>
</td></tr>`;
}

/** The section in the plain-text email, as lines (none without items); `wrap` is text.ts's. */
export function resurfacedText(
  view: DigestView,
  excerptLimit: number,
  wrap: (text: string, first: string, rest: string) => string[],
): string[] {
  if (view.resurfaced.length === 0) return [];
  const out = ['', RESURFACED_TITLE.toUpperCase(), '='.repeat(RESURFACED_TITLE.length), ''];
  for (const r of view.resurfaced) {
    out.push(...wrap(r.title, '* ', '  '));
    out.push(...wrap(resurfacedMeta(r).join(' · '), '  ', '  '));
    const summary = excerptOfText(r.excerpt, excerptLimit);
    if (summary !== '') out.push(...wrap(summary, '  ', '  '));
    if (r.href !== null) out.push(`  ${r.href}`);
    if (r.readHref !== null) out.push(`  Read it here: ${r.readHref}`);
    if (r.archiveHref !== null) out.push(`  Archive: ${r.archiveHref}`);
    if (r.tomorrowHref !== null) out.push(`  Keep for tomorrow: ${r.tomorrowHref}`);
    out.push('');
  }
  return out;
}
