// The app's and the browser's side of an OAuth sign-in through Plinth, for tests against a real
// provider peer on loopback (oidc-idp.ts, oauth2-provider.ts): the app's PKCE pair, initiation,
// handing the provider's redirect to Plinth's callback (GET, or POST for form_post), where Plinth
// then sent the browser, and the exchange of svc_code for a session. Also the admin's look-ups
// these tests check users with.
import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { OidcIdp } from './oidc-idp.js';
import type { TestApp } from './test-app.js';

type Requester = Pick<TestApp, 'request'>;
type AdminRequester = Pick<TestApp, 'request' | 'apiKey'>;

export interface IdpProvider {
  /** A built-in provider key: google, microsoft, linkedin, apple… */
  provider: string;
  clientId: string;
  clientSecret: string;
  /** Plinth's callback URL for the provider, registered at the IdP. */
  callbackUrl: string;
  /** More of the provider's configuration (scopes…). */
  extra?: Record<string, unknown>;
}

/**
 * Registers Plinth as a client of the OpenID provider and points a built-in provider at the IdP's
 * endpoints (POST /api/auth/oauth/configs as the admin); the answer is the configuration call's.
 */
export async function providerAtIdp(t: AdminRequester, idp: OidcIdp, options: IdpProvider) {
  const { provider, clientId, clientSecret } = options;
  await idp.addClient({ clientId, clientSecret, redirectUris: [options.callbackUrl] });
  return t.request({
    method: 'POST',
    url: '/api/auth/oauth/configs',
    headers: { 'x-api-key': t.apiKey },
    payload: {
      provider,
      clientId,
      clientSecret,
      authorizationUrl: idp.authorizationUrl,
      tokenUrl: idp.tokenUrl,
      userinfoUrl: idp.userinfoUrl,
      ...options.extra,
    },
  });
}

/** PUT /api/auth/config as the admin: the app redirects OAuth may end at. */
export function allowRedirectUrls(t: AdminRequester, allowedRedirectUrls: string[]) {
  return t.request({
    method: 'PUT',
    url: '/api/auth/config',
    headers: { 'x-api-key': t.apiKey },
    payload: { allowedRedirectUrls },
  });
}

/** The app's PKCE pair: a random verifier and its S256 challenge. */
export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** GET the provider's initiation path (e.g. /api/auth/oauth/google) with the app's query. */
export function initiateOAuth(t: Requester, initPath: string, query: Record<string, string>) {
  return t.request({ method: 'GET', url: `${initPath}?${new URLSearchParams(query)}` });
}

/** Sends the browser's return from the provider to Plinth's callback (GET, or POST for form_post). */
export function deliverCallback(t: Requester, callbackUrl: URL, formPost = false) {
  if (formPost) {
    return t.request({
      method: 'POST',
      url: callbackUrl.pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: callbackUrl.searchParams.toString(),
    });
  }
  return t.request({ method: 'GET', url: callbackUrl.pathname + callbackUrl.search });
}

/** Where Plinth's callback sent the browser: the app's redirect and its query. */
export function redirectOf(res: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  expect(res.statusCode, res.body).toBe(302);
  const location = new URL(String(res.headers.location));
  return {
    base: `${location.origin}${location.pathname}`,
    location,
    params: Object.fromEntries(location.searchParams),
  };
}

export interface BrowserFlowOptions {
  /** Plinth's initiation path for the provider. */
  initPath: string;
  /** The app's redirect_uri. */
  redirect: string;
  /** More of the initiation's query (login hints and the like). */
  hints?: Record<string, string>;
  /** The provider's part: sign-in and consent at `authUrl`, resolving with its redirect back to Plinth. */
  authorize(authUrl: string): Promise<URL>;
  /** The provider answers with a form POST (response_mode=form_post). */
  formPost?: boolean;
}

/** Initiation → the provider → Plinth's callback; the app redirect Plinth answered with. */
export async function runBrowserFlow(t: Requester, options: BrowserFlowOptions) {
  const pkce = pkcePair();
  const init = await initiateOAuth(t, options.initPath, {
    redirect_uri: options.redirect,
    code_challenge: pkce.challenge,
    ...options.hints,
  });
  expect(init.statusCode, init.body).toBe(200);
  const authUrl = new URL(init.json.authUrl);
  const callbackUrl = await options.authorize(authUrl.toString());
  const redirect = redirectOf(await deliverCallback(t, callbackUrl, options.formPost));
  return { ...redirect, pkce, authUrl, callbackUrl };
}

/** POST /api/auth/oauth/exchange: the app trades svc_code and its PKCE verifier for a session. */
export function exchangeCode(t: Requester, code: string, verifier: string, clientType = 'mobile') {
  return t.request({
    method: 'POST',
    url: `/api/auth/oauth/exchange?client_type=${clientType}`,
    payload: { code, code_verifier: verifier },
  });
}

/** The users with exactly this email, as the admin's list finds them. */
export async function usersWithEmail(t: AdminRequester, email: string) {
  const res = await t.request({
    method: 'GET',
    url: `/api/auth/users?search=${encodeURIComponent(email)}`,
    headers: { 'x-api-key': t.apiKey },
  });
  expect(res.statusCode).toBe(200);
  return (res.json.data as { id: string; email: string }[]).filter((u) => u.email === email);
}

/** One user as the admin reads it. */
export async function userById(t: AdminRequester, id: string) {
  const res = await t.request({ method: 'GET', url: `/api/auth/users/${id}`, headers: { 'x-api-key': t.apiKey } });
  expect(res.statusCode).toBe(200);
  return res.json;
}
