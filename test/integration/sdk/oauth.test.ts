// The official JavaScript client's OAuth calls against a listening Plinth and a real OIDC identity
// provider on loopback. Node or native apps: signInWithOAuth (skipBrowserRedirect) gives the
// provider URL and the PKCE verifier; after the provider, the app exchanges the code. Browser apps:
// the client navigates to the provider itself and, when the app's page loads again, finds the code
// under its hard-coded name `insforge_code` (sent beside the spec's `svc_code`, api-contract item
// 14) and exchanges it on its own.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcIdp, type OidcIdp } from '../../harness/oidc-idp.js';
import { installBrowser, openPage, startSdkApp, type SdkApp } from './sdk-app.js';

const APP = 'https://app.example/cb';

let s: SdkApp;
let idp: OidcIdp;

beforeAll(async () => {
  idp = await startOidcIdp();
  s = await startSdkApp();
  await idp.addClient({
    clientId: 'plinth',
    clientSecret: 'secret-0123456789',
    redirectUris: [`${s.baseUrl}/api/auth/oauth/google/callback`],
  });
  const admin = { 'x-api-key': s.t.apiKey };
  const configured = await s.t.request({
    method: 'POST',
    url: '/api/auth/oauth/configs',
    headers: admin,
    payload: {
      provider: 'google',
      clientId: 'plinth',
      clientSecret: 'secret-0123456789',
      authorizationUrl: idp.authorizationUrl,
      tokenUrl: idp.tokenUrl,
      userinfoUrl: idp.userinfoUrl,
    },
  });
  expect(configured.statusCode, configured.body).toBeLessThan(300);
  await s.t.request({
    method: 'PUT',
    url: '/api/auth/config',
    headers: admin,
    payload: { allowedRedirectUrls: [APP] },
  });
});
afterAll(async () => {
  await s?.close();
  await idp?.close();
});

describe('OAuth with PKCE', () => {
  it('signInWithOAuth → provider → callback → exchangeOAuthCode gives a session', async () => {
    const sub = `g-${randomBytes(4).toString('hex')}`;
    const address = `${sub}@example.com`;
    idp.addUser({ sub, email: address, emailVerified: true, name: 'Gina' });
    const client = s.client({ isServerMode: true });

    const started = await client.auth.signInWithOAuth({
      provider: 'google',
      redirectTo: APP,
      skipBrowserRedirect: true,
    });
    expect(started.error).toBeNull();
    const { url, codeVerifier, provider } = started.data as { url: string; codeVerifier: string; provider: string };
    expect(provider).toBe('google');
    expect(new URL(url).origin).toBe(new URL(idp.authorizationUrl).origin);

    const callback = await idp.authorize(url, sub);
    const back = await fetch(callback, { redirect: 'manual' });
    expect(back.status).toBe(302);
    const landing = new URL(back.headers.get('location')!);
    expect(`${landing.origin}${landing.pathname}`).toBe(APP);
    const code = landing.searchParams.get('svc_code');
    expect(code).toEqual(expect.any(String));
    expect(landing.searchParams.get('insforge_code')).toBe(code);

    const { data, error } = await client.auth.exchangeOAuthCode(code!, codeVerifier);
    expect(error).toBeNull();
    expect(data).toMatchObject({ user: { email: address, providers: ['google'] }, accessToken: expect.any(String) });
    expect((await client.auth.setProfile({ signedInWith: 'google' })).error).toBeNull();

    // The code is single use.
    const again = await client.auth.exchangeOAuthCode(code!, codeVerifier);
    expect(again.error).toMatchObject({ statusCode: 400 });
  });

  it('a redirect outside the allowlist is refused at initiation', async () => {
    const { error } = await s
      .client()
      .auth.signInWithOAuth({ provider: 'google', redirectTo: 'https://evil.example/cb', skipBrowserRedirect: true });
    expect(error).toMatchObject({ statusCode: 400, message: expect.stringContaining('https://evil.example/cb') });
  });
});

describe('OAuth in a browser: the client finishes the sign-in by itself', () => {
  it('signInWithOAuth navigates to the provider; on the page load that follows, the client exchanges insforge_code', async () => {
    const sub = `b-${randomBytes(4).toString('hex')}`;
    const address = `${sub}@example.com`;
    idp.addUser({ sub, email: address, emailVerified: true, name: 'Bea' });
    const browser = installBrowser();
    const page = openPage(APP);
    try {
      const started = await s
        .client({ fetch: browser.fetch })
        .auth.signInWithOAuth({ provider: 'google', redirectTo: APP });
      expect(started).toEqual({ data: {}, error: null });
      // The client navigated (window.location.href) and kept its PKCE verifier for the way back.
      const authUrl = page.location.href;
      expect(new URL(authUrl).origin).toBe(new URL(idp.authorizationUrl).origin);
      expect(page.sessionStorage.get('insforge_pkce_verifier')).toEqual(expect.any(String));

      const back = await fetch(await idp.authorize(authUrl, sub), { redirect: 'manual' });
      expect(back.status).toBe(302);
      page.navigate(back.headers.get('location')!);

      // The app's page loads: a new client, and nothing else from the app.
      const app = s.client({ fetch: browser.fetch });
      const current = await app.auth.getCurrentUser();
      expect(current.error).toBeNull();
      expect(current.data.user).toMatchObject({ email: address, providers: ['google'] });
      // The client took the code out of the URL and spent the verifier.
      const landed = new URL(page.location.href);
      expect(`${landed.origin}${landed.pathname}`).toBe(APP);
      expect(landed.searchParams.has('insforge_code')).toBe(false);
      expect(page.sessionStorage.has('insforge_pkce_verifier')).toBe(false);
      // A web session: the refresh cookie, the CSRF token, and a working access token.
      expect(browser.jar.has('svc_refresh_token')).toBe(true);
      expect(browser.pageCookies.get('insforge_csrf_token')).toEqual(expect.any(String));
      expect((await app.auth.setProfile({ signedInWith: 'google' })).error).toBeNull();
    } finally {
      page.close();
      browser.uninstall();
    }
  });

  it('a provider error comes back as `error`, which the client reads and clears without a session', async () => {
    const browser = installBrowser();
    const page = openPage(APP);
    try {
      await s.client({ fetch: browser.fetch }).auth.signInWithOAuth({ provider: 'google', redirectTo: APP });
      // The user declines at the provider: it redirects to Plinth's callback with error=access_denied.
      const state = new URL(page.location.href).searchParams.get('state')!;
      const callback = `${s.baseUrl}/api/auth/oauth/google/callback?error=access_denied&state=${encodeURIComponent(state)}`;
      const back = await fetch(callback, { redirect: 'manual' });
      expect(back.status).toBe(302);
      const landing = new URL(back.headers.get('location')!);
      expect(landing.searchParams.get('error')).toEqual(expect.any(String));
      expect(landing.searchParams.has('insforge_code')).toBe(false);
      page.navigate(landing.toString());

      const app = s.client({ fetch: browser.fetch });
      const current = await app.auth.getCurrentUser();
      expect(current.data.user).toBeNull();
      expect(new URL(page.location.href).searchParams.has('error')).toBe(false);
      expect(browser.jar.has('svc_refresh_token')).toBe(false);
    } finally {
      page.close();
      browser.uninstall();
    }
  });
});
