import { lazy } from '../lib/lazy.js';

/** undici, loaded by the first fetch: a server with no feed to poll and no page to read never needs it. */
export const undici = lazy(() => import('undici'));
