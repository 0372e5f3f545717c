import type { FastifyInstance } from 'fastify';
import { SECURITY_HEADERS } from './context.js';
import { PNG_ICONS, SVG_ICON_PATH, iconPng, iconSvg } from './icons.js';

/**
 * The web app manifest: what makes Tidings installable (Chrome on Android and on the desktop need a
 * manifest with a name, start_url, display and 192 and 512 px icons; no service worker since Chrome 108),
 * and its share_target, which puts Tidings in the system share sheet once installed.
 *
 * The share target is a GET to /share: the shared title, text and url arrive in the query and the page
 * only shows them in a form to confirm (pages/share.ts). A POST target would have to save without the
 * page's CSRF token, and the session cookie (SameSite=Lax) is not sent on the cross-site POST a share is
 * anyway; a GET that changes nothing needs neither, and works without JavaScript or a service worker.
 */

export const MANIFEST_PATH = '/manifest.webmanifest';

/** The page background of the light scheme (stylesheet.ts `--bg`): the splash screen and title bar. */
export const THEME_COLOR = '#fdfcf9';
export const THEME_COLOR_DARK = '#161614';

export const SHARE_PATH = '/share';

export function manifest(): Record<string, unknown> {
  return {
    id: '/',
    name: 'Tidings',
    short_name: 'Tidings',
    description: 'Save links for one calm daily digest.',
    lang: 'en',
    start_url: '/queue',
    scope: '/',
    display: 'standalone',
    theme_color: THEME_COLOR,
    background_color: THEME_COLOR,
    icons: [
      ...PNG_ICONS.filter((i) => !i.path.includes('apple')).map((i) => ({
        src: i.path,
        sizes: `${i.size}x${i.size}`,
        type: 'image/png',
        purpose: i.purpose,
      })),
      { src: SVG_ICON_PATH, sizes: 'any', type: 'image/svg+xml', purpose: 'any' },
    ],
    share_target: {
      action: SHARE_PATH,
      method: 'GET',
      // The only encoding a GET has (the query); Chromium warns when it is not said.
      enctype: 'application/x-www-form-urlencoded',
      params: { title: 'title', text: 'text', url: 'url' },
    },
  };
}

/** Serves the manifest and the icons (public: they say nothing about anyone). */
export function registerAppFiles(app: FastifyInstance): void {
  const body = JSON.stringify(manifest());
  const cached = { ...SECURITY_HEADERS, 'cache-control': 'public, max-age=86400' };
  app.get(MANIFEST_PATH, (_request, reply) =>
    reply.headers(cached).header('content-type', 'application/manifest+json; charset=utf-8').send(body),
  );
  for (const icon of PNG_ICONS) {
    app.get(icon.path, (_request, reply) =>
      reply.headers(cached).header('content-type', 'image/png').send(iconPng(icon)),
    );
  }
  const svg = iconSvg();
  app.get(SVG_ICON_PATH, (_request, reply) =>
    reply.headers(cached).header('content-type', 'image/svg+xml').send(svg),
  );
}
