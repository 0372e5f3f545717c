import type { ResurfacedItemView } from '../resurfacedView.js';
import { columns } from '../../lib/columns.js';
import { excerptOfText } from '../excerpt.js';
import type { Locale } from '../../i18n/locale.js';
import type { DigestView } from '../view.js';
import { esc } from './common.js';
import { COLORS, link, smallLink } from './style.js';

/*
 * The section "From your reading list" (digest/resurface.ts) in the digest's markup (the email, the web
 * page, the Atom entry: after the groups, before the footer) and in the plain-text email. Without items
 * there is no section at all.
 */

/** "example.org · saved 3 years ago · 6 min read · tagged rust, web" (plain text). */
export function resurfacedMeta(r: ResurfacedItemView, locale: Locale): string[] {
  return [
    r.site,
    r.savedLabel,
    r.readingTime ?? '',
    r.tags.length === 0 ? '' : locale.t('digest.item.tagged', { tags: locale.list(r.tags) }),
  ].filter((s) => s !== '');
}

/** The section's rows of the digest's table; `excerptLimit` the summaries' length (the email's is short). */
export function resurfacedRows(view: DigestView, excerptLimit: number | null): string[] {
  if (view.resurfaced.length === 0) return [];
  const t = view.locale;
  const heading = `<tr><td class="td-pad" style="padding:24px 32px 4px 32px;">
<h2 class="td-muted" style="margin:0;font-size:13px;line-height:18px;font-weight:700;letter-spacing:0.04em;text-transform:uppercase;color:${COLORS.muted};">${esc(t.t('digest.section.resurfaced'))}</h2>
</td></tr>`;
  return [heading, ...view.resurfaced.map((r) => row(r, excerptLimit, t))];
}

function row(r: ResurfacedItemView, excerptLimit: number | null, t: Locale): string {
  const title =
    r.href === null
      ? `<span class="td-text" dir="auto" style="font-size:16px;line-height:22px;font-weight:600;color:${COLORS.text};">${esc(r.title)}</span>`
      : `<a class="td-link td-title" href="${esc(r.href)}" dir="auto" style="font-size:16px;line-height:22px;font-weight:600;color:${COLORS.link};text-decoration:none;">${esc(r.title)}</a>`;
  const meta = resurfacedMeta(r, t).map((part) =>
    part === r.savedLabel ? `<time datetime="${esc(r.savedAt)}">${esc(part)}</time>` : esc(part),
  );
  const summary = excerptLimit === null ? r.excerpt : excerptOfText(r.excerpt, excerptLimit);
  const excerpt =
    summary === ''
      ? ''
      : `\n<p class="td-text" dir="auto" style="margin:6px 0 0 0;font-size:15px;line-height:22px;color:${COLORS.text};">${esc(summary)}</p>`;
  const actions = [
    ...(r.readHref === null ? [] : [link(r.readHref, esc(t.t('digest.item.read')))]),
    ...(r.archived
      ? [esc(t.t('digest.item.archived'))]
      : r.archiveHref === null
        ? []
        : [smallLink(r.archiveHref, esc(t.t('digest.item.archive')))]),
    ...(r.archived || r.tomorrowHref === null
      ? []
      : [smallLink(r.tomorrowHref, esc(t.t('digest.item.keep')))]),
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
  const t = view.locale;
  const title = t.t('digest.section.resurfaced');
  const linkLine = (label: string, href: string): string => `  ${t.t('digest.text.link', { label, href })}`;
  const out = ['', title.toUpperCase(), '='.repeat(columns(title)), ''];
  for (const r of view.resurfaced) {
    out.push(...wrap(r.title, '* ', '  '));
    out.push(...wrap(resurfacedMeta(r, t).join(' · '), '  ', '  '));
    const summary = excerptOfText(r.excerpt, excerptLimit);
    if (summary !== '') out.push(...wrap(summary, '  ', '  '));
    if (r.href !== null) out.push(`  ${r.href}`);
    if (r.readHref !== null) out.push(linkLine(t.t('digest.item.read'), r.readHref));
    if (r.archiveHref !== null) out.push(linkLine(t.t('digest.item.archive'), r.archiveHref));
    if (r.tomorrowHref !== null) out.push(linkLine(t.t('digest.item.keep'), r.tomorrowHref));
    out.push('');
  }
  return out;
}
