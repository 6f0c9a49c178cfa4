// How a session's tokens reach each kind of client: web clients get the refresh token in an
// httpOnly cookie and a CSRF token in the body; other clients get the refresh token in the body.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { ClientType } from './auth.schemas.js';
import type { IssuedTokens, MfaRequirement } from './tokens.js';

export interface RefreshCookie {
  name: string;
  path: string;
}

export const USER_REFRESH_COOKIE: RefreshCookie = { name: 'svc_refresh_token', path: '/api/auth' };
export const ADMIN_REFRESH_COOKIE: RefreshCookie = { name: 'svc_admin_refresh_token', path: '/api/auth/admin' };

function cookieOptions(config: Config, cookie: RefreshCookie) {
  // Browsers keep SameSite=None cookies only when Secure; plain-http development gets Lax.
  const secure = config.cookieSecure ?? config.apiBaseUrl.startsWith('https://');
  return { httpOnly: true, secure, sameSite: secure ? ('none' as const) : ('lax' as const), path: cookie.path };
}

export function clearRefreshCookie(reply: FastifyReply, config: Config, cookie: RefreshCookie): void {
  reply.clearCookie(cookie.name, cookieOptions(config, cookie));
}

export function readRefreshCookie(request: FastifyRequest, cookie: RefreshCookie): string | undefined {
  const value = request.cookies[cookie.name];
  return value ? value : undefined;
}

export function readCsrfHeader(request: FastifyRequest): string | undefined {
  const value = request.headers['x-csrf-token'];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** Sets the cookie for web clients and returns the token fields of the response body. */
export function deliverTokens(
  reply: FastifyReply,
  config: Config,
  cookie: RefreshCookie,
  clientType: ClientType,
  tokens: IssuedTokens,
): { accessToken: string; csrfToken?: string; refreshToken?: string; mfa?: MfaRequirement } {
  // A sign-in of an owner with verified second factors says so (the session is aal1 until one is verified).
  const mfa = tokens.mfa ? { mfa: tokens.mfa } : {};
  if (clientType !== 'web') return { accessToken: tokens.accessToken, refreshToken: tokens.refreshToken, ...mfa };
  reply.setCookie(cookie.name, tokens.refreshToken, {
    ...cookieOptions(config, cookie),
    maxAge: config.refreshTokenTtlSeconds,
  });
  return { accessToken: tokens.accessToken, csrfToken: tokens.csrfToken, ...mfa };
}

/** The refresh token a non-web client sent in the body (either spelling). */
export function bodyRefreshToken(body: { refreshToken?: string; refresh_token?: string } | null | undefined) {
  return body?.refreshToken ?? body?.refresh_token;
}
