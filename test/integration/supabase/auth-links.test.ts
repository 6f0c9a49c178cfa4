// supabase-js 2.119.1's email links against /auth/v1, with a real SMTP peer: admin generateLink
// (magiclink, signup, invite, recovery) with its action_link, email_otp and hashed_token;
// inviteUserByEmail and the emailed invitation; the link a browser follows (GET /verify: a 303
// to redirect_to with the session in the fragment) and verifyOtp({ token_hash }). What an attacker
// would try: replaying a link, a forged redirect_to, a link of one type used as another, the
// anon key on the admin routes, a stranger who registered the address first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../../harness/test-app.js';
import { claimsOf, newEmail, startSupabaseAuthApp, type SupabaseAuthApp } from './auth-app.js';

let s: SupabaseAuthApp;
const APP = 'http://localhost:3000/welcome';
const OTHER_APP = 'http://localhost:3000/other';

beforeAll(async () => {
  s = await startSupabaseAuthApp({ smtp: true });
  const res = await s.t.request({
    method: 'PUT',
    url: '/api/auth/config',
    headers: bearer(s.t.apiKey),
    payload: { allowedRedirectUrls: [APP, OTHER_APP] },
  });
  expect(res.statusCode, res.body).toBe(200);
});
afterAll(() => s.close());

const PASSWORD = 'sb-links-pass-1';

/** Follows an email link as a browser would, without going on to the app: status and Location. */
async function click(link: string) {
  const res = await fetch(link, { redirect: 'manual' });
  const location = res.headers.get('location');
  return { status: res.status, location: location ? new URL(location) : null, body: await res.text() };
}

/** GoTrue's fragment parameters of a redirect. */
const fragmentOf = (url: URL) => Object.fromEntries(new URLSearchParams(url.hash.slice(1)));

async function userExists(email: string) {
  const rows = await s.t.deps.sql`select 1 from auth.users where email = ${email}`;
  return rows.length > 0;
}

describe('generateLink', () => {
  it('magiclink: a new user, unconfirmed; the action_link signs in once and lands on redirect_to with the session in the fragment', async () => {
    const admin = s.admin();
    const email = newEmail('magic');
    const { data, error } = await admin.auth.admin.generateLink({
      type: 'magiclink',
      email,
      options: { redirectTo: APP, data: { plan: 'pro' } },
    });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ email, email_confirmed_at: null, user_metadata: { plan: 'pro' } });
    const properties = data.properties!;
    expect(properties).toMatchObject({
      email_otp: expect.stringMatching(/^\d{6}$/),
      hashed_token: expect.stringMatching(/^[0-9a-f]{64}$/),
      verification_type: 'magiclink',
      redirect_to: APP,
    });
    const action = new URL(properties.action_link);
    expect(`${action.origin}${action.pathname}`).toBe(`${s.url}/auth/v1/verify`);
    expect(Object.fromEntries(action.searchParams)).toEqual({
      token: properties.hashed_token,
      type: 'magiclink',
      redirect_to: APP,
    });
    // generate_link sends nothing: the admin delivers the link.
    expect(s.smtp!.pendingFor(email)).toEqual([]);

    const clicked = await click(properties.action_link);
    expect(clicked.status).toBe(303);
    expect(`${clicked.location!.origin}${clicked.location!.pathname}`).toBe(APP);
    const fragment = fragmentOf(clicked.location!);
    expect(fragment).toMatchObject({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      expires_in: expect.stringMatching(/^\d+$/),
      expires_at: expect.stringMatching(/^\d+$/),
      token_type: 'bearer',
      type: 'magiclink',
    });
    expect(claimsOf(fragment.access_token!)).toMatchObject({ email, amr: [{ method: 'otp' }] });

    // What supabase-js does with the fragment (detectSessionInUrl): the session works.
    const { sb, events } = s.client();
    const set = await sb.auth.setSession({
      access_token: fragment.access_token!,
      refresh_token: fragment.refresh_token!,
    });
    expect(set.error).toBeNull();
    expect(events).toEqual(['SIGNED_IN']);
    expect((await sb.auth.getUser()).data.user).toMatchObject({ email, email_confirmed_at: expect.any(String) });

    // Replayed, the link is spent: back to the app with GoTrue's error fragment, no session.
    const replay = await click(properties.action_link);
    expect(replay.status).toBe(303);
    expect(fragmentOf(replay.location!)).toEqual({
      error: 'access_denied',
      error_code: 'otp_expired',
      error_description: 'Email link is invalid or has expired',
    });
  });

  it('magiclink: the email_otp signs in with verifyOtp instead of the link', async () => {
    const email = newEmail('otp');
    const { data } = await s.admin().auth.admin.generateLink({ type: 'magiclink', email });
    const { sb } = s.client();
    const verified = await sb.auth.verifyOtp({ email, token: data.properties!.email_otp, type: 'magiclink' });
    expect(verified.error).toBeNull();
    expect(verified.data.user).toMatchObject({ email });
  });

  it('signup: creates the user with the password; verifyOtp({ token_hash }) confirms and signs in; a confirmed address is email_exists', async () => {
    const admin = s.admin();
    const email = newEmail('signup');
    const weak = await admin.auth.admin.generateLink({ type: 'signup', email, password: '123' });
    expect(weak.error).toMatchObject({ status: 422, code: 'weak_password' });
    expect(await userExists(email)).toBe(false);

    const { data, error } = await admin.auth.admin.generateLink({ type: 'signup', email, password: PASSWORD });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ email, email_confirmed_at: null });

    const { sb, events } = s.client();
    const verified = await sb.auth.verifyOtp({ token_hash: data.properties!.hashed_token, type: 'signup' });
    expect(verified.error).toBeNull();
    expect(verified.data.user).toMatchObject({ email, email_confirmed_at: expect.any(String) });
    expect(events).toEqual(['SIGNED_IN']);
    // The same token_hash again: spent.
    const again = await s.client().sb.auth.verifyOtp({ token_hash: data.properties!.hashed_token, type: 'signup' });
    expect(again.error).toMatchObject({ status: 403, code: 'otp_expired' });

    expect((await s.client().sb.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    const taken = await admin.auth.admin.generateLink({ type: 'signup', email, password: PASSWORD });
    expect(taken.error).toMatchObject({ status: 422, code: 'email_exists' });
  });

  it('recovery: unknown address is user_not_found; the link lands with type=recovery and updateUser sets the password', async () => {
    const admin = s.admin();
    const missing = await admin.auth.admin.generateLink({ type: 'recovery', email: newEmail('nobody') });
    expect(missing.error).toMatchObject({ status: 404, code: 'user_not_found' });

    const email = newEmail('recover');
    await admin.auth.admin.createUser({ email, password: PASSWORD, email_confirm: true });
    const { data } = await admin.auth.admin.generateLink({ type: 'recovery', email, options: { redirectTo: APP } });
    const clicked = await click(data.properties!.action_link);
    const fragment = fragmentOf(clicked.location!);
    expect(fragment.type).toBe('recovery');
    const { sb } = s.client();
    await sb.auth.setSession({ access_token: fragment.access_token!, refresh_token: fragment.refresh_token! });
    expect((await sb.auth.updateUser({ password: 'recovered-pass-9' })).error).toBeNull();
    expect((await s.client().sb.auth.signInWithPassword({ email, password: 'recovered-pass-9' })).error).toBeNull();
  });

  it('refuses email changes (422), a redirect_to not allowed (400, nothing written) and the anon key (403 not_admin)', async () => {
    const admin = s.admin();
    const email = newEmail('refused');
    const change = await admin.auth.admin.generateLink({
      type: 'email_change_new',
      email,
      newEmail: newEmail('new'),
    });
    expect(change.error).toMatchObject({ status: 422, code: 'validation_failed' });

    const evil = await admin.auth.admin.generateLink({
      type: 'magiclink',
      email,
      options: { redirectTo: 'https://evil.example/steal' },
    });
    expect(evil.error).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(await userExists(email)).toBe(false);

    const { sb } = s.client();
    const anon = await sb.auth.admin.generateLink({ type: 'magiclink', email });
    expect(anon.error).toMatchObject({ status: 403, code: 'not_admin' });
    const anonInvite = await sb.auth.admin.inviteUserByEmail(email);
    expect(anonInvite.error).toMatchObject({ status: 403, code: 'not_admin' });
    expect(await userExists(email)).toBe(false);
  });
});

describe('the link a browser follows', () => {
  it('keeps the redirect the link was issued with: a forged redirect_to in the URL is ignored', async () => {
    const email = newEmail('forged');
    const { data } = await s.admin().auth.admin.generateLink({
      type: 'magiclink',
      email,
      options: { redirectTo: APP },
    });
    const forged = new URL(data.properties!.action_link);
    forged.searchParams.set('redirect_to', 'https://evil.example/steal');
    const clicked = await click(forged.toString());
    expect(clicked.status).toBe(303);
    expect(clicked.location!.origin + clicked.location!.pathname).toBe(APP);
    expect(fragmentOf(clicked.location!).access_token).toEqual(expect.any(String));
  });

  it('a link issued without redirect_to needs an allowed one: an evil one is 400 and leaves the link usable', async () => {
    const email = newEmail('noredirect');
    const { data } = await s.admin().auth.admin.generateLink({ type: 'magiclink', email });
    const link = new URL(data.properties!.action_link);
    expect(link.searchParams.has('redirect_to')).toBe(false);

    link.searchParams.set('redirect_to', 'https://evil.example/steal');
    const evil = await click(link.toString());
    expect(evil.status).toBe(400);
    expect(evil.location).toBeNull();
    expect(JSON.parse(evil.body)).toMatchObject({ code: 400, error_code: 'validation_failed' });

    link.searchParams.set('redirect_to', OTHER_APP);
    const ok = await click(link.toString());
    expect(ok.status).toBe(303);
    expect(ok.location!.origin + ok.location!.pathname).toBe(OTHER_APP);
    expect(fragmentOf(ok.location!).type).toBe('magiclink');
  });

  it('a link used as another type fails and stays usable for its own type; an unknown token is otp_expired', async () => {
    const email = newEmail('types');
    const { data } = await s.admin().auth.admin.generateLink({
      type: 'magiclink',
      email,
      options: { redirectTo: APP },
    });
    const token = data.properties!.hashed_token;
    const asRecovery = await click(`${s.url}/auth/v1/verify?token=${token}&type=recovery&redirect_to=${APP}`);
    expect(fragmentOf(asRecovery.location!)).toMatchObject({ error_code: 'otp_expired' });

    const unknown = await click(`${s.url}/auth/v1/verify?token=${'a'.repeat(64)}&type=magiclink`);
    expect(unknown.status).toBe(403);
    expect(JSON.parse(unknown.body)).toMatchObject({ error_code: 'otp_expired' });

    // type=email stands for signup, magiclink and invite links (verifyOtp({ token_hash, type: 'email' })).
    const { sb } = s.client();
    const verified = await sb.auth.verifyOtp({ token_hash: token, type: 'email' });
    expect(verified.error).toBeNull();
    expect(verified.data.user).toMatchObject({ email });
  });

  it('a stranger who registered the address first loses the account when its owner follows a magic link', async () => {
    const email = newEmail('squat');
    const { sb: stranger } = s.client();
    const squatted = await stranger.auth.signUp({ email, password: 'stranger-pass-1' });
    expect(squatted.error).toBeNull();
    expect(squatted.data.user!.email_confirmed_at).toBeNull();

    const { data } = await s.admin().auth.admin.generateLink({
      type: 'magiclink',
      email,
      options: { redirectTo: APP },
    });
    const clicked = await click(data.properties!.action_link);
    expect(fragmentOf(clicked.location!).access_token).toEqual(expect.any(String));
    // The stranger's session ended and the password is gone.
    expect((await stranger.auth.getUser()).error).not.toBeNull();
    const again = await s.client().sb.auth.signInWithPassword({ email, password: 'stranger-pass-1' });
    expect(again.error).toMatchObject({ code: 'invalid_credentials' });
  });
});

describe('inviteUserByEmail', () => {
  it('creates the user with its data and emails a link; following it signs in (type=invite) and the user sets a password', async () => {
    const admin = s.admin();
    const email = newEmail('invite');
    const { data, error } = await admin.auth.admin.inviteUserByEmail(email, {
      data: { team: 'blue' },
      redirectTo: APP,
    });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ email, email_confirmed_at: null, user_metadata: { team: 'blue' } });

    const mail = await s.smtp!.nextMessageTo(email);
    const link = /https?:\/\/[^\s"<>]+\/auth\/v1\/verify\?[^\s"<>]+/.exec(mail.body)?.[0]?.replace(/&amp;/g, '&');
    expect(link).toBeDefined();
    const clicked = await click(link!);
    expect(clicked.status).toBe(303);
    const fragment = fragmentOf(clicked.location!);
    expect(fragment.type).toBe('invite');

    const { sb } = s.client();
    await sb.auth.setSession({ access_token: fragment.access_token!, refresh_token: fragment.refresh_token! });
    expect((await sb.auth.updateUser({ password: PASSWORD })).error).toBeNull();
    const signedIn = await s.client().sb.auth.signInWithPassword({ email, password: PASSWORD });
    expect(signedIn.error).toBeNull();
    expect(signedIn.data.user).toMatchObject({
      email_confirmed_at: expect.any(String),
      user_metadata: { team: 'blue' },
    });

    // An address that is already a confirmed user is not invited again.
    const twice = await admin.auth.admin.inviteUserByEmail(email);
    expect(twice.error).toMatchObject({ status: 422, code: 'email_exists' });
    expect(s.smtp!.pendingFor(email)).toEqual([]);
  });
});
