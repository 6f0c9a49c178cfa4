// The requests a client sends to open, keep or end its session, built once: password sign-in, the
// web client's refresh and logout (the httpOnly refresh cookie plus the X-CSRF-Token header; the
// admin's have a cookie and paths of their own), a non-web client's refresh (the token in the
// body), and the current-session check.
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { bearer, cookieFrom, type TestApp } from './test-app.js';

type Requester = Pick<TestApp, 'request'>;

/** A web session's credentials; a missing one is left out of the request. */
export interface WebCredentials {
  cookie?: string;
  csrf?: string;
}

/** Whose session: an end user's (/api/auth) or the project admin's (/api/auth/admin). */
export type SessionOwner = 'user' | 'admin';

const WEB = {
  user: { cookie: 'svc_refresh_token', path: '/api/auth' },
  admin: { cookie: 'svc_admin_refresh_token', path: '/api/auth/admin' },
} as const;

/** The refresh cookie and CSRF token a web sign-in (or registration, or refresh) answered with. */
export function webCredentialsOf(
  res: LightMyRequestResponse & { json: any },
  owner: SessionOwner = 'user',
): { cookie: string; csrf: string } {
  const cookie = cookieFrom(res, WEB[owner].cookie);
  if (!cookie) throw new Error(`no ${WEB[owner].cookie} cookie in the answer: ${res.statusCode} ${res.body}`);
  return { cookie: cookie.value, csrf: res.json.csrfToken as string };
}

function webRequest(t: Requester, action: 'refresh' | 'logout', credentials: WebCredentials, owner: SessionOwner) {
  const { cookie, csrf } = credentials;
  return t.request({
    method: 'POST',
    url: `${WEB[owner].path}/${action}`,
    cookies: cookie === undefined ? {} : { [WEB[owner].cookie]: cookie },
    headers: csrf === undefined ? {} : { 'x-csrf-token': csrf },
  });
}

/** POST …/refresh as a browser sends it: the refresh cookie and the X-CSRF-Token header. */
export const webRefresh = (t: Requester, credentials: WebCredentials, owner: SessionOwner = 'user') =>
  webRequest(t, 'refresh', credentials, owner);

/** POST …/logout as a browser sends it: the refresh cookie and the X-CSRF-Token header. */
export const webLogout = (t: Requester, credentials: WebCredentials, owner: SessionOwner = 'user') =>
  webRequest(t, 'logout', credentials, owner);

/** POST /api/auth/sessions with email and password, as a web client unless a client type is given. */
export const passwordSignIn = (t: Requester, credentials: { email: string; password: string }, clientType?: string) =>
  t.request({
    method: 'POST',
    url: `/api/auth/sessions${clientType ? `?client_type=${clientType}` : ''}`,
    payload: { email: credentials.email, password: credentials.password },
  });

/** A new user signed in as a web client: the sign-in answer, its cookie and CSRF token. */
export async function signedInWebUser(t: Pick<TestApp, 'request' | 'signUp'>) {
  const res = await passwordSignIn(t, await t.signUp());
  expect(res.statusCode).toBe(200);
  return { res, ...webCredentialsOf(res) };
}

/** POST /api/auth/refresh as a mobile client: the refresh token in the body. */
export const refreshMobile = (t: Requester, refreshToken: string) =>
  t.request({ method: 'POST', url: '/api/auth/refresh?client_type=mobile', payload: { refreshToken } });

/** GET /api/auth/sessions/current with an access token. */
export const currentSession = (t: Requester, token: string) =>
  t.request({ method: 'GET', url: '/api/auth/sessions/current', headers: bearer(token) });
