/** Elements that nest in real pages; other tags close themselves or are void. */
const NESTING =
  /<(\/?)(?:div|span|a|section|article|main|aside|table|ul|ol|blockquote|b|i|em|strong|font|small|big|u|s|q|sup|sub|center|form|label|nav|header|footer|figure)[\s>]/gi;

/**
 * Deepest nesting the page's markup asks for, estimated from its start and end tags without parsing: a
 * deep page (thousands of unclosed <div> or <a>) makes Readability quadratic or worse on every DOM (3,000
 * nested <div> took linkedom 1 s, jsdom more than 8 minutes), so such a page gets its metadata only.
 */
export function markupDepth(html: string, limit: number): number {
  let depth = 0;
  let max = 0;
  for (const m of html.matchAll(NESTING)) {
    depth = m[1] === '/' ? Math.max(0, depth - 1) : depth + 1;
    if (depth > max && (max = depth) > limit) break;
  }
  return max;
}

/** Nesting past which a page is not given to Readability; articles nest a few dozen levels at most. */
export const MAX_DEPTH = 400;
