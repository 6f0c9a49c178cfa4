// An account created through a provider that did not verify its address belongs to whoever
// proves the inbox: signing in by emailed code, or resetting the password by email, drops the
// provider link the squatter made, so they cannot sign back in through it.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  allowRedirectUrls,
  deliverCallback,
  exchangeCode,
  initiateOAuth,
  pkcePair,
  providerAtIdp,
} from '../../harness/oauth-flow.js';
import { startOidcIdp, type OidcIdp } from '../../harness/oidc-idp.js';
import { passwordSignIn } from '../../harness/sessions.js';
import { codeFrom, startSmtpPeer, type SmtpPeer } from '../../harness/smtp-peer.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

const APP = 'https://app.example/cb';
const CALLBACK = 'http://localhost:7130/api/auth/oauth/google/callback';

let t: TestApp;
let idp: OidcIdp;
let peer: SmtpPeer;

beforeAll(async () => {
  [idp, peer] = await Promise.all([startOidcIdp(), startSmtpPeer()]);
  t = await startTestApp({ env: peer.env });
  await providerAtIdp(t, idp, {
    provider: 'google',
    clientId: 'plinth',
    clientSecret: 'secret-0123456789',
    callbackUrl: CALLBACK,
  });
  await allowRedirectUrls(t, [APP]);
});
afterAll(async () => {
  await t?.close();
  await Promise.all([idp?.close(), peer?.close()]);
});

/** Google sign-in as `sub`: the app redirect's query (svc_code or error). */
async function googleSignIn(sub: string) {
  const { verifier, challenge } = pkcePair();
  const init = await initiateOAuth(t, '/api/auth/oauth/google', { redirect_uri: APP, code_challenge: challenge });
  const callback = await idp.authorize(init.json.authUrl, sub);
  const back = await deliverCallback(t, callback);
  const params = new URL(String(back.headers.location)).searchParams;
  if (!params.get('svc_code')) return { error: params.get('error') };
  const session = await exchangeCode(t, params.get('svc_code')!, verifier);
  return { user: session.json.user };
}

/** A squatter's account: made through Google with someone else's address, unverified. */
async function squat() {
  const email = `victim-${randomBytes(4).toString('hex')}@example.com`;
  const sub = `squatter-${randomBytes(4).toString('hex')}`;
  idp.addUser({ sub, email, emailVerified: false, name: 'Squatter' });
  const { user } = await googleSignIn(sub);
  expect(user).toMatchObject({ email, emailVerified: false, providers: ['google'] });
  return { email, sub, userId: user.id as string };
}

describe('the inbox owner claims an account a provider created unverified', () => {
  it('by signing in with an emailed code', async () => {
    const squatted = await squat();
    await t.request({
      method: 'POST',
      url: '/api/auth/email/send-otp',
      payload: { email: squatted.email },
      remoteAddress: '10.9.0.1',
    });
    const code = codeFrom(await peer.nextMessageTo(squatted.email));
    const owner = await t.request({
      method: 'POST',
      url: '/api/auth/sessions?client_type=mobile',
      payload: { method: 'otp', email: squatted.email, otp: code },
      remoteAddress: '10.9.0.1',
    });
    expect(owner.statusCode).toBe(200);
    expect(owner.json.user).toMatchObject({ id: squatted.userId, emailVerified: true, providers: ['email'] });
    const again = await googleSignIn(squatted.sub);
    expect(again.user).toBeUndefined();
    expect(again.error).toMatch(/did not verify/);
  });

  it('by resetting the password by email', async () => {
    const squatted = await squat();
    await t.request({
      method: 'POST',
      url: '/api/auth/email/send-reset-password',
      payload: { email: squatted.email },
      remoteAddress: '10.9.0.2',
    });
    const code = codeFrom(await peer.nextMessageTo(squatted.email));
    const exchanged = await t.request({
      method: 'POST',
      url: '/api/auth/email/exchange-reset-password-token',
      payload: { email: squatted.email, code },
      remoteAddress: '10.9.0.2',
    });
    const reset = await t.request({
      method: 'POST',
      url: '/api/auth/email/reset-password',
      payload: { newPassword: 'owner-password-1', otp: exchanged.json.token },
      remoteAddress: '10.9.0.2',
    });
    expect(reset.statusCode).toBe(200);
    const again = await googleSignIn(squatted.sub);
    expect(again.error).toMatch(/did not verify/);
    const owner = await passwordSignIn(t, { email: squatted.email, password: 'owner-password-1' }, 'mobile');
    expect(owner.json.user).toMatchObject({ id: squatted.userId, emailVerified: true, providers: ['email'] });
  });
});
