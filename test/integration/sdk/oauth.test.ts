// The official JavaScript client's OAuth calls against a listening Plinth and a real OIDC identity
// provider on loopback: signInWithOAuth (skipBrowserRedirect, as a Node or native app does) gives
// the provider URL and the PKCE verifier; after the provider, the app exchanges the code.
// Brand word by design: Plinth's redirect carries `svc_code` where the reference sends
// `insforge_code`, so the client's browser-only automatic detection (which reads window.location
// for insforge_code) does not fire; apps pass the code to exchangeOAuthCode themselves.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOidcIdp, type OidcIdp } from '../../harness/oidc-idp.js';
import { startSdkApp, type SdkApp } from './sdk-app.js';

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
