// Reads the refresh token a request presents and rotates it: web clients send the cookie and
// its X-CSRF-Token; other clients send the token in the body. A rejected cookie is cleared. A
// cookie-flow refresh from a client that cannot hold cookies is told so (400), not signed out.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { AppError } from '../../core/errors.js';
import type { ClientType } from './auth.schemas.js';
import { sentByThisOrigin } from './csrf-proof.js';
import {
  bodyRefreshToken,
  clearRefreshCookie,
  deliverTokens,
  readCsrfHeader,
  readRefreshCookie,
  type RefreshCookie,
} from './session-reply.js';
import type { RefreshedSession, SessionKind, SessionService } from './sessions.service.js';

type RefreshRequest = FastifyRequest<{
  Querystring: { client_type: ClientType };
  Body: { refreshToken?: string; refresh_token?: string } | null | undefined;
}>;

export async function refreshFromRequest(
  request: RefreshRequest,
  reply: FastifyReply,
  options: {
    config: Config;
    sessions: SessionService;
    kind: SessionKind;
    cookie: RefreshCookie;
    /** Throws to refuse a rotated session (e.g. an admin account that no longer exists). */
    accept?: (refreshed: RefreshedSession) => void;
    /**
     * Whether a browser's same-origin request needs no X-CSRF-Token (the dashboard's: see
     * csrf-proof.ts).
     */
    sameOriginProvesIntent?: boolean;
  },
) {
  const clientType = request.query.client_type;
  const web = clientType === 'web';
  const token = web ? readRefreshCookie(request, options.cookie) : bodyRefreshToken(request.body);
  if (!token && web && !mayBeBrowser(request)) {
    // A client without a cookie jar (the official client in Node, a script): a 401 would make the
    // client drop its session and go on as anon (`200 []`); a 400 keeps the failure on every call.
    throw new AppError(
      'VALIDATION_ERROR',
      'No refresh token: the request has no refresh cookie and no refreshToken in the body. A client without a cookie jar (a Node app) cannot use the cookie flow.',
      {
        details: [{ field: 'refreshToken', rule: 'required', message: 'is required without the refresh cookie' }],
        nextActions:
          'In Node, create the client with isServerMode: true, keep the refreshToken that sign-in returns, and call auth.refreshSession({ refreshToken }) when a call answers AUTH_UNAUTHORIZED (docs/auth-server-side.md); or POST /api/auth/refresh?client_type=mobile with {"refreshToken": "..."}.',
      },
    );
  }
  if (!token && web) {
    throw new AppError('UNAUTHORIZED', 'No refresh token provided.', {
      nextActions: `Sign in again; web clients send the ${options.cookie.name} cookie (credentials: include).`,
    });
  }
  if (!token) {
    throw new AppError('VALIDATION_ERROR', 'refreshToken: is required', {
      details: [{ field: 'refreshToken', rule: 'required', message: 'is required' }],
    });
  }
  try {
    const refreshed = await options.sessions.refresh(
      token,
      options.kind,
      web ? csrfToCheck(request, options.sameOriginProvesIntent === true) : undefined,
    );
    options.accept?.(refreshed);
    return { refreshed, delivered: deliverTokens(reply, options.config, options.cookie, clientType, refreshed.tokens) };
  } catch (err) {
    if (web && err instanceof AppError && err.code === 'UNAUTHORIZED')
      clearRefreshCookie(reply, options.config, options.cookie);
    throw err;
  }
}

/**
 * Whether the request may come from a browser whose refresh cookie is gone (expired, cleared):
 * browsers send Origin on every POST, and the official client sends the CSRF token it kept in
 * document.cookie. A request with neither comes from a client that never had the cookie.
 */
function mayBeBrowser(request: FastifyRequest): boolean {
  return request.headers.origin !== undefined || readCsrfHeader(request) !== undefined;
}

/** The CSRF token a web refresh must match, or undefined when none is needed. */
function csrfToCheck(request: FastifyRequest, sameOriginProvesIntent: boolean): string | undefined {
  if (sameOriginProvesIntent && sentByThisOrigin(request)) return undefined;
  return readCsrfHeader(request) ?? '';
}
