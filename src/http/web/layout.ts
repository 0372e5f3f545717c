import type { Locale, MessageKey } from '../../i18n/locale.js';
import { type Interpolation, type SafeHtml, html } from './html.js';
import { PNG_ICONS, SVG_ICON_PATH } from './icons.js';
import { MANIFEST_PATH, THEME_COLOR, THEME_COLOR_DARK } from './manifest.js';
import { STYLESHEET_PATH } from './stylesheet.js';

/** The pages in the navigation, in order. */
export const NAV = [
  { id: 'queue', href: '/queue', label: 'web.nav.queue' },
  { id: 'reading-list', href: '/reading-list', label: 'web.nav.readingList' },
  { id: 'feeds', href: '/feeds', label: 'web.nav.feeds' },
  { id: 'newsletters', href: '/newsletters', label: 'web.nav.newsletters' },
  { id: 'digests', href: '/digests', label: 'web.nav.digests' },
  { id: 'settings', href: '/settings', label: 'web.nav.settings' },
  { id: 'keys', href: '/keys', label: 'web.nav.keys' },
  { id: 'save', href: '/save', label: 'web.nav.save' },
  { id: 'accounts', href: '/accounts', label: 'web.nav.accounts' },
] as const satisfies readonly { id: string; href: string; label: MessageKey }[];

/** Pages only administrators see in the navigation (and may open). */
const ADMIN_ONLY: ReadonlySet<NavId> = new Set(['accounts']);

export type NavId = (typeof NAV)[number]['id'];

/** What the layout shows of a signed-in reader. */
export interface Viewer {
  accountName: string;
  csrfToken: string;
  /** An administrator: the navigation shows Accounts. */
  isAdmin?: boolean;
  /** The language the reader's pages are written in (context.ts `localeFor`). */
  locale: Locale;
}

export interface PageOptions {
  /** The page's language: its `lang`, `dir` and words (a signed-in reader's is `viewer.locale`). */
  locale: Locale;
  title: string;
  /** The signed-in reader; null on the sign-in and error pages of a signed-out browser. */
  viewer: Viewer | null;
  current?: NavId;
  body: Interpolation;
  /** Same-origin scripts the page loads (the passkey script); none by default. */
  scripts?: readonly string[];
}

const APPLE_TOUCH_ICON = PNG_ICONS.find((i) => i.path.includes('apple'))?.path ?? '';

/** The hidden field every form of a session carries. */
export const csrfField = (viewer: Viewer): SafeHtml =>
  html`<input type="hidden" name="_csrf" value="${viewer.csrfToken}" />`;

/**
 * Words for a screen reader only, after a control's visible words (WCAG 2.5.3: its accessible name begins
 * with what is seen, so no aria-label replaces them): "Revoke" + " key “phone”".
 */
export const unseen = (text: string): SafeHtml => html`<span class="visually-hidden">${text}</span>`;

export function page(opts: PageOptions): SafeHtml {
  const { viewer, locale } = opts;
  const nav =
    viewer === null
      ? null
      : html`<nav aria-label="${locale.t('web.nav.label')}">
            <ul>
              ${NAV.filter((item) => viewer.isAdmin === true || !ADMIN_ONLY.has(item.id)).map(
                (item) =>
                  html`<li>
                    <a href="${item.href}" ${item.id === opts.current ? html` aria-current="page"` : ''}
                      >${locale.t(item.label)}</a
                    >
                  </li>`,
              )}
            </ul>
          </nav>
          <div class="account">
            <span>${viewer.accountName}</span>
            <form class="inline" method="post" action="/sign-out">
              ${csrfField(viewer)}<button class="link" type="submit">${locale.t('web.signOut')}</button>
            </form>
          </div>`;
  return html`<!doctype html>
    <html lang="${locale.lang}" dir="${locale.dir}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>${opts.title} · Tidings</title>
        <link rel="stylesheet" href="${STYLESHEET_PATH}" />
        <link rel="icon" href="${SVG_ICON_PATH}" type="image/svg+xml" />
        <link rel="manifest" href="${MANIFEST_PATH}" />
        <link rel="apple-touch-icon" href="${APPLE_TOUCH_ICON}" />
        <meta name="theme-color" content="${THEME_COLOR}" media="(prefers-color-scheme: light)" />
        <meta name="theme-color" content="${THEME_COLOR_DARK}" media="(prefers-color-scheme: dark)" />
        ${(opts.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
      </head>
      <body>
        <a class="skip" href="#main">${locale.t('web.skipToContent')}</a>
        <header class="site">
          <div class="bar">
            <a class="brand" href="/">Tidings</a>
            ${nav}
          </div>
        </header>
        <main id="main" tabindex="-1">${opts.body}</main>
      </body>
    </html> `;
}

/** A page that only says what went wrong, with a way on. */
export function errorPage(status: number, message: string, viewer: Viewer | null, locale: Locale): SafeHtml {
  const heading = locale.t(
    ERROR_HEADINGS[status] ?? (status >= 500 ? 'web.error.heading.server' : 'web.error.heading.other'),
  );
  return page({
    locale,
    title: heading,
    viewer,
    body: html`<h1>${heading}</h1>
      <p>${message}</p>
      <p>
        <a href="${viewer === null ? '/sign-in' : '/queue'}"
          >${locale.t(viewer === null ? 'web.error.signIn' : 'web.error.backToQueue')}</a
        >
      </p>`,
  });
}

const ERROR_HEADINGS: Record<number, MessageKey & `web.error.heading.${string}`> = {
  400: 'web.error.heading.400',
  403: 'web.error.heading.403',
  404: 'web.error.heading.404',
  413: 'web.error.heading.413',
  429: 'web.error.heading.429',
  503: 'web.error.heading.503',
};
