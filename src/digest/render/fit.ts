import { encodedTextBytes } from '../mail.js';
import { ATOM_ENTRY_BYTES } from '../limits.js';
import type { DigestView } from '../view.js';
import { digestBodyHtml, renderEmailHtml } from './html.js';

/*
 * A rendering that is never clipped (issue 24): Gmail shows a message's first 102 KB of HTML and hides the
 * rest behind "View entire message". The email is cut by size, not by count: when its HTML part, measured
 * as sent (encoded), passes EMAIL_HTML_BUDGET, the section "From your reading list" goes first, then
 * the last entries (the saved links and top stories come first, so they stay), and the email ends with how
 * many were left out and a link to the web page. An Atom entry is the same view cut the same way, to
 * ATOM_ENTRY_BYTES of HTML (issue 33); `digest show` prints the email's cut.
 */

/** Bytes of encoded HTML an email may take: under Gmail's clip (102 KB), with room for headers' variance. */
export const EMAIL_HTML_BUDGET = 100 * 1000;

/** The view shortened to its first `keep` entries (in the order shown), `cut` counting those left out. */
function firstEntries(view: DigestView, keep: number): DigestView {
  let left = keep;
  let cut = view.cut;
  const groups = view.groups.flatMap((g) => {
    const items = g.items.slice(0, Math.max(0, left));
    cut += g.items.length - items.length;
    left -= items.length;
    if (items.length === 0 && (left <= 0 || g.more === null)) return [];
    return [{ ...g, items }];
  });
  return { ...view, groups, cut };
}

/**
 * The view and its rendering with as many entries as fit within `budget` bytes as `size` measures them:
 * whole when it fits; else without "From your reading list" (counted among the entries left out); else
 * its first entries, as many as fit.
 */
export function fitView(
  whole: DigestView,
  render: (view: DigestView) => string,
  size: (rendered: string) => number,
  budget: number,
): { view: DigestView; html: string } {
  const html = render(whole);
  if (size(html) <= budget) return { view: whole, html };
  // "From your reading list" goes first, whole: it never takes the room of the reader's links or the
  // feeds' entries (the web page still shows it). Counted among the entries left out.
  const view = { ...whole, resurfaced: [], cut: whole.cut + whole.resurfaced.length };
  if (whole.resurfaced.length > 0) {
    const without = render(view);
    if (size(without) <= budget) return { view, html: without };
  }
  const total = view.groups.reduce((n, g) => n + g.items.length, 0);
  // The most entries that fit: bounded search over the count (each try renders once).
  let low = 0;
  let high = total - 1;
  let best = { view: firstEntries(view, 0), html: render(firstEntries(view, 0)) };
  while (low <= high) {
    const mid = Math.floor((low + high) / 2);
    const tried = firstEntries(view, mid);
    const triedHtml = render(tried);
    if (size(triedHtml) <= budget) {
      best = { view: tried, html: triedHtml };
      low = mid + 1;
    } else high = mid - 1;
  }
  return best;
}

/** The email's view and HTML, with as many entries as fit within `budget` encoded bytes. */
export function fitEmail(whole: DigestView, budget = EMAIL_HTML_BUDGET): { view: DigestView; html: string } {
  return fitView(whole, renderEmailHtml, encodedTextBytes, budget);
}

/** An Atom entry's view and content (the body markup), with as many entries as fit within `budget` bytes. */
export function fitAtomEntry(
  whole: DigestView,
  budget = ATOM_ENTRY_BYTES,
): { view: DigestView; html: string } {
  return fitView(
    whole,
    (v) => digestBodyHtml(v, 'atom'),
    (html) => Buffer.byteLength(html),
    budget,
  );
}
