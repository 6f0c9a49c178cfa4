// supabase-js 2.119.1 OAuth sign-in with PKCE against /auth/v1 and a real OpenID provider on
// loopback: signInWithOAuth → /authorize → the IdP → Plinth's callback → the app's redirect with
// ?code= → exchangeCodeForSession (SIGNED_IN, amr oauth); the code is single-use.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { allowRedirectUrls, providerAtIdp } from '../../harness/oauth-flow.js';
import { type OidcIdp, startOidcIdp } from '../../harness/oidc-idp.js';
import { claimsOf, startSupabaseAuthApp, type SupabaseAuthApp } from './auth-app.js';

let s: SupabaseAuthApp;
let idp: OidcIdp;
const APP = 'http://localhost:3000/auth/callback';

beforeAll(async () => {
  idp = await startOidcIdp();
  s = await startSupabaseAuthApp();
  const res = await providerAtIdp(s.t, idp, {
    provider: 'google',
    clientId: 'plinth-google',
    clientSecret: 'idp-secret-for-google-0123456789',
    callbackUrl: `${s.url}/api/auth/oauth/google/callback`,
  });
  expect(res.statusCode, res.body).toBe(201);
  expect((await allowRedirectUrls(s.t, [APP])).statusCode).toBe(200);
});
afterAll(async () => {
  await s.close();
  await idp.close();
});

it('signInWithOAuth (PKCE) ends at the app with ?code=, and exchangeCodeForSession signs in', async () => {
  idp.addUser({ sub: 'idp-ada', email: 'ada-oauth@example.com', emailVerified: true, name: 'Ada' });
  const { sb, events } = s.client();
  const started = await sb.auth.signInWithOAuth({
    provider: 'google',
    options: { redirectTo: APP, skipBrowserRedirect: true },
  });
  expect(started.error).toBeNull();
  const toProvider = await fetch(started.data.url!, { redirect: 'manual' });
  expect(toProvider.status).toBe(302);
  const callback = await idp.authorize(toProvider.headers.get('location')!, 'idp-ada');
  const back = await fetch(callback, { redirect: 'manual' });
  expect(back.status).toBe(302);
  const landing = new URL(back.headers.get('location')!);
  expect(`${landing.origin}${landing.pathname}`).toBe(APP);
  const code = landing.searchParams.get('code')!;
  expect(code).toEqual(expect.any(String));

  const { data, error } = await sb.auth.exchangeCodeForSession(code);
  expect(error).toBeNull();
  expect(data.user).toMatchObject({ email: 'ada-oauth@example.com' });
  expect(claimsOf(data.session!.access_token).amr).toEqual([{ method: 'oauth', timestamp: expect.any(Number) }]);
  expect(events).toEqual(['SIGNED_IN']);

  // The code is spent: replaying it (with any verifier) finds no flow.
  const replay = await fetch(`${s.url}/auth/v1/token?grant_type=pkce`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${s.t.anonKey}`,
      'content-type': 'application/json',
      'x-supabase-api-version': '2024-01-01',
    },
    body: JSON.stringify({ auth_code: code, code_verifier: 'v'.repeat(43) }),
  });
  expect(replay.status).toBe(404);
  expect(await replay.json()).toMatchObject({ code: 'flow_state_not_found' });
});

it('the implicit flow is refused with a GoTrue 400, and an unlisted redirect is refused', async () => {
  const implicit = await fetch(`${s.url}/auth/v1/authorize?provider=google&redirect_to=${encodeURIComponent(APP)}`, {
    redirect: 'manual',
  });
  expect(implicit.status).toBe(400);
  expect((await implicit.json()).error_code).toBe('validation_failed');
  const { sb } = s.client();
  const evil = await sb.auth.signInWithOAuth({
    provider: 'google',
    options: { redirectTo: 'https://evil.example/cb', skipBrowserRedirect: true },
  });
  const refused = await fetch(evil.data.url!, { redirect: 'manual' });
  expect(refused.status).toBe(400);
});
