// Whether a web request of the dashboard proves its intent without an X-CSRF-Token: the dashboard
// keeps its CSRF token in memory only, so after a reload (or another tab's refresh) it has none.

import type { FastifyRequest } from 'fastify';

/**
 * Whether the browser vouches that a page of this very origin sent the request. Browsers set
 * `Sec-Fetch-Site` and no page can forge it: a page of another origin (or a sandboxed document,
 * whose origin is opaque) gets `cross-site` or `same-site`. A client that is not a browser may
 * send anything, but has no victim's httpOnly cookie to replay.
 */
export const sentByThisOrigin = (request: FastifyRequest): boolean =>
  request.headers['sec-fetch-site'] === 'same-origin';
