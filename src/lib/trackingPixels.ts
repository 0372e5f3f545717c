/*
 * Tracking pixels: images that show nothing and exist to tell a sender or an analytics service that a
 * message or a page was opened, by whom (the address that fetched it) and when. One rule, called wherever
 * HTML from outside is kept (docs/privacy.md): the page sanitiser (src/lib/sanitize.ts) when a saved
 * page is read, the reading view's second pass (src/http/web/readerHtml.ts) for pages kept before the rule,
 * a feed item's own picture (src/feeds/parse/entry.ts), and a newsletter's body when it arrives. Such an
 * image is dropped, never proxied: even through the media proxy, fetching it would tell its sender that
 * someone opened the message.
 */

/** Hosts (and their subdomains) that serve only open-tracking pixels and page beacons. */
const TRACKING_HOSTS = [
  // Newsletter platforms' open pixels.
  'eotrx.substackcdn.com',
  'open.convertkit-mail.com',
  'open.convertkit-mail2.com',
  'open.kit-mail3.com',
  'pixel.mailerlite.com',
  'ea.pstmrk.it',
  'pixel.app.returnpath.net',
  'trk.klclick.com',
  // Analytics beacons pages and feeds embed as images.
  'pixel.wp.com',
  'pixel.quantserve.com',
  'sb.scorecardresearch.com',
  'b.scorecardresearch.com',
  'px.ads.linkedin.com',
  'ct.pinterest.com',
  'analytics.twitter.com',
];

/** A host's tracking paths: the host serves other things too. */
const TRACKING_PATHS: readonly { host: string; path: RegExp }[] = [
  { host: 'list-manage.com', path: /^\/track\/open/ }, // Mailchimp
  { host: 'ct.sendgrid.net', path: /^\/wf\/open/ }, // SendGrid
  { host: 'mjt.lu', path: /^\/oo\// }, // Mailjet
  { host: 'awstrack.me', path: /^\/I0\// }, // Amazon SES
  { host: 'createsend1.com', path: /^\/t\// }, // Campaign Monitor
  { host: 'hubspotemail.net', path: /^\/e2t\/to\// }, // HubSpot
  { host: 'mailgun.org', path: /^\/o\// }, // Mailgun
  { host: 'google-analytics.com', path: /^\/(?:g\/)?collect/ },
  { host: 'facebook.com', path: /^\/tr\/?$/ }, // Meta pixel
  { host: 'bat.bing.com', path: /^\/action\// },
  { host: 'stats.wp.com', path: /^\/[bg]\.gif/ },
  { host: 'feeds.feedburner.com', path: /^\/~r\// }, // FeedBurner's per-item pixel
  { host: 'feedproxy.google.com', path: /^\/~r\// },
];

const onHost = (host: string, domain: string): boolean => host === domain || host.endsWith(`.${domain}`);

/** Whether an image's address is a known tracking pixel's or beacon's, whatever its size. */
export function isTrackingSource(src: string): boolean {
  let url: URL;
  try {
    url = new URL(src);
  } catch {
    return false;
  }
  const host = url.hostname.toLowerCase();
  if (TRACKING_HOSTS.some((h) => onHost(host, h))) return true;
  return TRACKING_PATHS.some((t) => onHost(host, t.host) && t.path.test(url.pathname));
}

/** A length of 0, 1 or 2 pixels: "1", "0", "1px", "1.0". */
const TINY = /^\s*[0-2](?:\.\d+)?\s*(?:px)?\s*$/i;
const TINY_STYLE =
  /(?:^|[;\s])(?:max-)?(?:width|height)\s*:\s*[0-2](?:\.\d+)?(?:px)?\s*(?:!important\s*)?(?:;|$)/i;
const HIDDEN_STYLE =
  /(?:^|[;\s])(?:display\s*:\s*none|visibility\s*:\s*hidden|mso-hide\s*:\s*all|opacity\s*:\s*0(?:\.0+)?\s*(?:!important\s*)?(?:;|$))/i;

/** Whether an element was hidden as sent: the hidden attribute, or an inline style that hides it. */
export function isHidden(attribs: Readonly<Record<string, string | undefined>>): boolean {
  if (attribs.hidden !== undefined) return true;
  const style = attribs.style;
  return style !== undefined && HIDDEN_STYLE.test(style);
}

/**
 * Whether an image is a tracking pixel: drawn 2×2 pixels or smaller in either direction (its width or
 * height attribute, or its inline style), hidden, or from a known tracking address. `attribs` are the
 * image's attributes as sent (before any sanitising drops its style), `src` its absolute address.
 */
export function isTrackingPixel(attribs: Readonly<Record<string, string | undefined>>, src: string): boolean {
  const { width, height, style } = attribs;
  if ((width !== undefined && TINY.test(width)) || (height !== undefined && TINY.test(height))) return true;
  if (style !== undefined && TINY_STYLE.test(style)) return true;
  return isHidden(attribs) || isTrackingSource(src);
}
