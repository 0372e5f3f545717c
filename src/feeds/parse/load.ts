import { lazy } from '../../lib/lazy.js';

/** The feed reader (feedsmith, fast-xml-parser, htmlparser2…), loaded by the first feed to read. */
export const feedParser = lazy(() => import('./parse.js'));
