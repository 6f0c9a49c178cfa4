// Browsers' cross-origin calls: which origins may call (CORS_ORIGINS), which of them with credentials
// (cookies: only origins listed by name; `*` lets any page call with a token it holds, never with
// the visitor's cookies), and which answer headers their scripts may read. One place for these
// headers: every answer (an onRequest hook), preflights, and the admission door's refusals.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../core/errors.js';
import { sendError } from './error-handler.js';

// X-Plinth-Lsn: the write position a page sends back on its next read (read replicas, read-your-writes).
const EXPOSED_HEADERS = 'Content-Range, Preference-Applied, X-Request-Id, Retry-After, X-Plinth-Lsn';
const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';
const FUNCTION_PREFLIGHTS = '/functions/v1/';
/** tus endpoints answer a plain OPTIONS (protocol discovery) themselves; preflights stay here. */
const TUS_DISCOVERY = ['/api/storage/uploads/resumable', '/storage/v1/upload/resumable'];
// Chromium's ceiling: a page whose every call is preflighted (supabase-js's apikey header does
// that) asks once per URL every two hours instead of before each request.
const PREFLIGHT_MAX_AGE_SECONDS = '7200';

/** More answer headers a page may read on some paths (a compatibility surface's clients read them). */
export interface ExtraExposedHeaders {
  appliesTo(url: string): boolean;
  headers: string;
}

/**
 * What a page of an origin may do: call with credentials (its cookies ride along, so the page acts
 * as the signed-in visitor), call without them (its own bearer token or key), or nothing.
 */
export type CorsGrant = 'credentials' | 'anonymous' | 'none';

export type OriginPolicy = (origin: string) => CorsGrant;

export function originPolicy(corsOrigins: string[]): OriginPolicy {
  const anyOrigin = corsOrigins.includes('*');
  // `null` is the origin of sandboxed documents and local files: anyone's, never trusted by name.
  const named = new Set(corsOrigins.filter((o) => o !== '*' && o !== 'null'));
  return (origin) => (named.has(origin) ? 'credentials' : anyOrigin ? 'anonymous' : 'none');
}

const NONE: Readonly<Record<string, string>> = Object.freeze({});

/** The CORS headers of an answer to a request from `origin` (none without an allowed Origin). */
export function corsHeaders(origin: string | undefined, allows: OriginPolicy): Readonly<Record<string, string>> {
  const grant = origin === undefined ? 'none' : allows(origin);
  if (grant === 'none') return NONE;
  return {
    'access-control-allow-origin': origin!,
    ...(grant === 'credentials' ? { 'access-control-allow-credentials': 'true' } : {}),
    'access-control-expose-headers': EXPOSED_HEADERS,
    vary: 'Origin',
  };
}

const notAPreflight = () =>
  new AppError('VALIDATION_ERROR', 'An OPTIONS request here is a CORS preflight.', {
    nextActions: 'Send Origin and Access-Control-Request-Method, as browsers do before a cross-origin call.',
  });

/**
 * Adds the CORS headers to every answer and answers preflights (204, no body). Requests without an
 * Origin (servers, mobile apps) get only `Vary: Origin`, so caches keep browsers' answers apart.
 */
export function registerCors(app: FastifyInstance, allows: OriginPolicy, extra?: ExtraExposedHeaders): void {
  const allExposed = extra && `${EXPOSED_HEADERS}, ${extra.headers}`;
  app.addHook('onRequest', (request, reply, done) => {
    const origin = request.headers.origin;
    const headers = corsHeaders(origin, allows);
    reply.header('vary', 'Origin').headers(headers);
    if (allExposed && headers !== NONE && extra.appliesTo(request.url)) {
      reply.header('access-control-expose-headers', allExposed);
    }
    // Supabase's functions answer their own preflights (modules/functions/invoke.routes.ts).
    if (request.method !== 'OPTIONS' || request.url.startsWith(FUNCTION_PREFLIGHTS)) return done();
    const preflight = request.headers['access-control-request-method'] !== undefined;
    if (!preflight && TUS_DISCOVERY.some((p) => request.url.startsWith(p))) return done();
    if (origin === undefined || request.headers['access-control-request-method'] === undefined) {
      sendError(reply, notAPreflight());
      return;
    }
    // A preflight from an origin not allowed gets no Allow-Origin: the browser stops there.
    reply.header('access-control-allow-methods', ALLOWED_METHODS);
    reply.header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS);
    const requested = request.headers['access-control-request-headers'];
    reply.header('vary', 'Origin, Access-Control-Request-Headers');
    if (requested !== undefined) reply.header('access-control-allow-headers', requested);
    reply.code(204).header('content-length', '0').send();
  });
  // Routes OPTIONS requests to the hook above (answered there, never here).
  app.options('*', { config: { access: 'public' }, schema: { hide: true } }, (_request, reply) => {
    sendError(reply, notAPreflight());
  });
}
