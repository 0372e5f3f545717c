import { esc } from './common.js';

/* The colours and links the digest's markup shares (html.ts, resurfaced.ts). */

export const COLORS = {
  page: '#f3f2ef',
  card: '#ffffff',
  text: '#1f2328',
  muted: '#636c76',
  link: '#0b57d0',
  rule: '#e4e2dd',
} as const;

export const link = (href: string, text: string): string =>
  `<a class="td-link" href="${esc(href)}" style="color:${COLORS.link};text-decoration:underline;">${text}</a>`;

/**
 * A link of the many small ones an email repeats (an item's "Also in:" sources, "Keep for tomorrow", a feed's
 * "Fewer · More · Mute"): the class alone, which the dark-mode block and clients' default link colour style.
 * An entry's bytes count against the clip: inline styles on these took a fifth of a 40-entry email.
 */
export const smallLink = (href: string, text: string): string =>
  `<a class="td-link" href="${esc(href)}">${text}</a>`;
