// supabase-js 2.119.1 against /auth/v1 over Plinth's anonymous users and MFA: signInAnonymously
// (is_anonymous on the user and in the token), conversion with updateUser({email, password}),
// and auth.mfa's enroll → challenge → verify (aal2, user.factors, getAuthenticatorAssuranceLevel),
// unenroll at aal2 only, and GoTrue's MFA error codes; another user's factor is never reachable.
// SSO: signInWithSSO → a real SAML IdP on loopback → Plinth's ACS → redirect_to?code= →
// exchangeCodeForSession.
import { AuthApiError } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totpCode } from '../../harness/mfa.js';
import { type SamlIdp, startSamlIdp } from '../../harness/saml-idp.js';
import { claimsOf, newEmail, startSupabaseAuthApp, type SupabaseAuthApp } from './auth-app.js';

const APP_REDIRECT = 'https://app.example/sso/callback';
let s: SupabaseAuthApp;
let idp: SamlIdp;
beforeAll(async () => {
  idp = await startSamlIdp({ now: () => s.t.clock.now() });
  s = await startSupabaseAuthApp({ env: { OUTBOUND_ALLOWED_ORIGINS: new URL(idp.metadataUrl).origin } });
  const admin = { 'x-api-key': s.t.apiKey };
  const config = await s.t.request({
    method: 'PUT',
    url: '/api/auth/config',
    headers: admin,
    payload: { allowedRedirectUrls: [APP_REDIRECT] },
  });
  expect(config.statusCode, config.body).toBe(200);
  const provider = await s.t.request({
    method: 'POST',
    url: '/api/auth/sso/providers',
    headers: admin,
    payload: { metadataUrl: idp.metadataUrl, domains: ['acme.test'] },
  });
  expect(provider.statusCode, provider.body).toBe(201);
});
afterAll(async () => {
  await s?.close();
  await idp?.close();
});

const PASSWORD = 'sb-password-1';

async function setAnonymous(enabled: boolean) {
  const res = await s.t.request({
    method: 'PUT',
    url: '/api/auth/config',
    headers: { 'x-api-key': s.t.apiKey },
    payload: { anonymousSignInsEnabled: enabled },
  });
  expect(res.statusCode, res.body).toBe(200);
}

async function signedUp() {
  const { sb, events } = s.client();
  const email = newEmail('mfa');
  const { data, error } = await sb.auth.signUp({ email, password: PASSWORD });
  expect(error).toBeNull();
  return { sb, events, email, user: data.user! };
}

/** A signed-in client with an enrolled (unverified) TOTP factor. */
async function enrolled(friendlyName = 'phone') {
  const signed = await signedUp();
  const { data, error } = await signed.sb.auth.mfa.enroll({ factorType: 'totp', friendlyName });
  expect(error).toBeNull();
  return { ...signed, factor: data! };
}

/** The next code: one step on, so the factor's replay guard never refuses a fresh code. */
const freshCode = (secret: string) => {
  s.t.clock.advance(30_000);
  return totpCode(s.t, secret);
};

describe('anonymous users', () => {
  it('signInAnonymously is 422 anonymous_provider_disabled while the project switch is off; /settings says so', async () => {
    await setAnonymous(false);
    const { sb } = s.client();
    const res = await sb.auth.signInAnonymously();
    expect(res.error).toBeInstanceOf(AuthApiError);
    expect(res.error).toMatchObject({ status: 422, code: 'anonymous_provider_disabled' });
    const settings = await fetch(`${s.url}/auth/v1/settings`, {
      headers: { apikey: s.t.anonKey, authorization: `Bearer ${s.t.anonKey}` },
    });
    expect((await settings.json()).external.anonymous_users).toBe(false);
  });

  it('signInAnonymously: an anonymous user with its data, is_anonymous in the user and the token; getUser agrees', async () => {
    await setAnonymous(true);
    const { sb, events } = s.client();
    const { data, error } = await sb.auth.signInAnonymously({ options: { data: { theme: 'dark' } } });
    expect(error).toBeNull();
    expect(events).toEqual(['SIGNED_IN']);
    expect(data.user).toMatchObject({ is_anonymous: true, email: '', user_metadata: { theme: 'dark' } });
    const claims = claimsOf(data.session!.access_token);
    expect(claims).toMatchObject({
      sub: data.user!.id,
      role: 'authenticated',
      is_anonymous: true,
      user_metadata: { theme: 'dark' },
      aal: 'aal1',
      amr: [{ method: 'anonymous' }],
    });
    const read = await sb.auth.getUser();
    expect(read.data.user).toMatchObject({ id: data.user!.id, is_anonymous: true });
    const settings = await fetch(`${s.url}/auth/v1/settings`, {
      headers: { apikey: s.t.anonKey, authorization: `Bearer ${s.t.anonKey}` },
    });
    expect((await settings.json()).external.anonymous_users).toBe(true);
  });

  it('updateUser({email, password}) converts the anonymous user (same id and data); the password then signs in', async () => {
    await setAnonymous(true);
    const { sb } = s.client();
    const anon = await sb.auth.signInAnonymously({ options: { data: { cart: 3 } } });
    const email = newEmail('convert');
    const converted = await sb.auth.updateUser({ email, password: PASSWORD });
    expect(converted.error).toBeNull();
    expect(converted.data.user).toMatchObject({
      id: anon.data.user!.id,
      email,
      is_anonymous: false,
      user_metadata: { cart: 3 },
    });
    const again = s.client().sb;
    const signedIn = await again.auth.signInWithPassword({ email, password: PASSWORD });
    expect(signedIn.error).toBeNull();
    expect(signedIn.data.user!.id).toBe(anon.data.user!.id);
    expect(claimsOf(signedIn.data.session!.access_token).is_anonymous).toBe(false);

    // Now a regular user: the email cannot change through updateUser.
    const change = await again.auth.updateUser({ email: newEmail('other'), password: PASSWORD });
    expect(change.error).toMatchObject({ status: 422, code: 'validation_failed' });
  });

  it('conversion to a taken email is 422 email_exists and the user stays anonymous; a weak password is weak_password', async () => {
    await setAnonymous(true);
    const taken = await signedUp();
    const { sb } = s.client();
    await sb.auth.signInAnonymously();
    const clash = await sb.auth.updateUser({ email: taken.email, password: PASSWORD });
    expect(clash.error).toMatchObject({ status: 422, code: 'email_exists' });
    const weak = await sb.auth.updateUser({ email: newEmail('weak'), password: '1' });
    expect(weak.error).toMatchObject({ status: 422, code: 'weak_password' });
    const noPassword = await sb.auth.updateUser({ email: newEmail('nopw') });
    expect(noPassword.error).toMatchObject({ status: 422, code: 'validation_failed' });
    const read = await sb.auth.getUser();
    expect(read.data.user).toMatchObject({ is_anonymous: true, email: '' });
  });
});

describe('MFA factors (auth.mfa)', () => {
  it('enroll answers GoTrue’s shape: id, type, friendly_name and totp {qr_code, secret, uri}', async () => {
    const { factor, email } = await enrolled('my phone');
    expect(factor).toMatchObject({ id: expect.any(String), type: 'totp', friendly_name: 'my phone' });
    expect(factor.totp.secret).toMatch(/^[A-Z2-7]+=*$/);
    expect(factor.totp.uri).toContain(`otpauth://totp/`);
    expect(decodeURIComponent(factor.totp.uri)).toContain(email);
    // auth-js adds the data: prefix to GoTrue's bare SVG: exactly once.
    expect(factor.totp.qr_code.startsWith('data:image/svg+xml;utf-8,<svg')).toBe(true);
  });

  it('challenge → verify with the authenticator’s code: an aal2 session, factors verified, AAL reads aal2', async () => {
    const { sb, events, factor } = await enrolled();
    const before = await sb.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(before.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal1' });

    const challenge = await sb.auth.mfa.challenge({ factorId: factor.id });
    expect(challenge.error).toBeNull();
    expect(challenge.data).toMatchObject({ id: expect.any(String), type: 'totp', expires_at: expect.any(Number) });
    const verified = await sb.auth.mfa.verify({
      factorId: factor.id,
      challengeId: challenge.data!.id,
      code: freshCode(factor.totp.secret),
    });
    expect(verified.error).toBeNull();
    expect(events).toContain('MFA_CHALLENGE_VERIFIED');
    expect(verified.data!.user.factors).toEqual([
      expect.objectContaining({ id: factor.id, factor_type: 'totp', status: 'verified', friendly_name: 'phone' }),
    ]);
    expect(claimsOf(verified.data!.access_token)).toMatchObject({
      aal: 'aal2',
      amr: expect.arrayContaining([expect.objectContaining({ method: 'totp' })]),
    });

    const aal = await sb.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data).toMatchObject({ currentLevel: 'aal2', nextLevel: 'aal2' });
    expect(aal.data!.currentAuthenticationMethods.map((m) => (typeof m === 'string' ? m : m.method))).toContain('totp');

    const user = await sb.auth.getUser();
    expect(user.data.user!.factors).toEqual([expect.objectContaining({ id: factor.id, status: 'verified' })]);
    const list = await sb.auth.mfa.listFactors();
    expect(list.data!.totp.map((f) => f.id)).toEqual([factor.id]);
  });

  it('a wrong code is 422 mfa_verification_failed and leaves the session at aal1', async () => {
    const { sb, factor } = await enrolled();
    const challenge = await sb.auth.mfa.challenge({ factorId: factor.id });
    const good = freshCode(factor.totp.secret);
    const wrong = good === '000000' ? '111111' : '000000';
    const res = await sb.auth.mfa.verify({ factorId: factor.id, challengeId: challenge.data!.id, code: wrong });
    expect(res.error).toBeInstanceOf(AuthApiError);
    expect(res.error).toMatchObject({ status: 422, code: 'mfa_verification_failed' });
    const aal = await sb.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal1' });
  });

  it('a new sign-in is aal1 with nextLevel aal2; unenroll needs aal2 (403 insufficient_aal), then answers {id}', async () => {
    const { sb, email, factor } = await enrolled();
    const verified = await sb.auth.mfa.challengeAndVerify({ factorId: factor.id, code: freshCode(factor.totp.secret) });
    expect(verified.error).toBeNull();

    const second = s.client().sb;
    await second.auth.signInWithPassword({ email, password: PASSWORD });
    const aal = await second.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal2' });
    const refused = await second.auth.mfa.unenroll({ factorId: factor.id });
    expect(refused.error).toMatchObject({ status: 403, code: 'insufficient_aal' });

    const raised = await second.auth.mfa.challengeAndVerify({
      factorId: factor.id,
      code: freshCode(factor.totp.secret),
    });
    expect(raised.error).toBeNull();
    const removed = await second.auth.mfa.unenroll({ factorId: factor.id });
    expect(removed.error).toBeNull();
    expect(removed.data).toEqual({ id: factor.id });
    const user = await second.auth.getUser();
    expect(user.data.user!.factors ?? []).toEqual([]);
  });

  it('another user’s factor is 404 mfa_factor_not_found for challenge, verify and unenroll', async () => {
    const victim = await enrolled();
    const challenge = await victim.sb.auth.mfa.challenge({ factorId: victim.factor.id });
    const attacker = await signedUp();
    const theirs = await attacker.sb.auth.mfa.challenge({ factorId: victim.factor.id });
    expect(theirs.error).toMatchObject({ status: 404, code: 'mfa_factor_not_found' });
    const verify = await attacker.sb.auth.mfa.verify({
      factorId: victim.factor.id,
      challengeId: challenge.data!.id,
      code: freshCode(victim.factor.totp.secret),
    });
    expect(verify.error).toMatchObject({ status: 404, code: 'mfa_factor_not_found' });
    const unenroll = await attacker.sb.auth.mfa.unenroll({ factorId: victim.factor.id });
    expect(unenroll.error).toMatchObject({ status: 404, code: 'mfa_factor_not_found' });
    // The victim's factor is untouched and still verifiable by the victim.
    const own = await victim.sb.auth.mfa.verify({
      factorId: victim.factor.id,
      challengeId: challenge.data!.id,
      code: totpCode(s.t, victim.factor.totp.secret),
    });
    expect(own.error).toBeNull();
  });

  it('a challenge of another session is 404; phone factors are 422 mfa_phone_enroll_not_enabled; a duplicate name is mfa_factor_name_conflict', async () => {
    const { sb, email, factor } = await enrolled('dup');
    const challenge = await sb.auth.mfa.challenge({ factorId: factor.id });
    const other = s.client().sb;
    await other.auth.signInWithPassword({ email, password: PASSWORD });
    const foreign = await other.auth.mfa.verify({
      factorId: factor.id,
      challengeId: challenge.data!.id,
      code: freshCode(factor.totp.secret),
    });
    expect(foreign.error).toMatchObject({ status: 404, code: 'mfa_factor_not_found' });

    const phone = await sb.auth.mfa.enroll({ factorType: 'phone', phone: '+15555550100' });
    expect(phone.error).toMatchObject({ status: 422, code: 'mfa_phone_enroll_not_enabled' });
    const dup = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'dup' });
    expect(dup.error).toMatchObject({ status: 422, code: 'mfa_factor_name_conflict' });
  });
});

describe('SSO (signInWithSSO)', () => {
  /** The browser: to the IdP, then the IdP's form posted to Plinth's ACS; where it lands. */
  async function throughIdp(url: string, email: string) {
    idp.actAs({ nameId: `idp-${email}`, email });
    const form = await idp.visit(url);
    const acs = await s.t.request({
      method: 'POST',
      url: new URL(form.action).pathname,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ SAMLResponse: form.SAMLResponse, RelayState: form.RelayState! }).toString(),
    });
    expect(acs.statusCode, acs.body).toBe(302);
    return new URL(acs.headers.location as string);
  }

  it('by domain: the IdP URL, then redirect_to?code= and exchangeCodeForSession signs the user in', async () => {
    const { sb, events } = s.client();
    const started = await sb.auth.signInWithSSO({ domain: 'acme.test', options: { redirectTo: APP_REDIRECT } });
    expect(started.error).toBeNull();
    expect(started.data!.url.startsWith(idp.ssoUrl)).toBe(true);
    const email = `ada-${Date.now()}@acme.test`;
    const landing = await throughIdp(started.data!.url, email);
    expect(`${landing.origin}${landing.pathname}`).toBe(APP_REDIRECT);
    const code = landing.searchParams.get('code');
    expect(code).toEqual(expect.any(String));
    expect(landing.searchParams.has('svc_code')).toBe(false);

    const { data, error } = await sb.auth.exchangeCodeForSession(code!);
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ email, is_anonymous: false });
    expect(events).toContain('SIGNED_IN');
    // The code is single-use.
    const again = await s.client().sb.auth.exchangeCodeForSession(code!);
    expect(again.error).not.toBeNull();
  });

  it('an unknown domain is 404 sso_provider_not_found; a redirect outside the allow-list is refused', async () => {
    const { sb } = s.client();
    const unknown = await sb.auth.signInWithSSO({ domain: 'nobody.test', options: { redirectTo: APP_REDIRECT } });
    expect(unknown.error).toMatchObject({ status: 404, code: 'sso_provider_not_found' });
    const evil = await sb.auth.signInWithSSO({
      domain: 'acme.test',
      options: { redirectTo: 'https://evil.example/cb' },
    });
    expect(evil.error).toMatchObject({ status: 400 });
  });
});
