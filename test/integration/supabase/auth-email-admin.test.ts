// supabase-js 2.119.1 against /auth/v1 with a real SMTP peer: email OTP sign-in with verifyOtp,
// password recovery (verify type=recovery, then updateUser), sign-up with confirmation required,
// the per-address email rate limit (over_email_send_rate_limit), and the admin user API with the
// service_role key (create, list by page, get, update, delete).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFrom } from '../../harness/smtp-peer.js';
import { bearer, DEFAULT_AUTH_CONFIG } from '../../harness/test-app.js';
import { claimsOf, newEmail, startSupabaseAuthApp, type SupabaseAuthApp } from './auth-app.js';

let s: SupabaseAuthApp;
beforeAll(async () => {
  s = await startSupabaseAuthApp({ smtp: true });
});
afterAll(() => s.close());

const PASSWORD = 'sb-password-1';

async function setAuthConfig(changes: Record<string, unknown>) {
  const res = await s.t.request({
    method: 'PUT',
    url: '/api/auth/config',
    headers: bearer(s.t.apiKey),
    payload: changes,
  });
  expect(res.statusCode, res.body).toBe(200);
}

describe('emailed codes', () => {
  it('signInWithOtp emails a code; verifyOtp signs in (SIGNED_IN) with amr otp; a wrong code is otp_expired', async () => {
    const { sb, events } = s.client();
    const email = newEmail('otp');
    expect(await sb.auth.signInWithOtp({ email })).toMatchObject({ error: null });
    const code = codeFrom(await s.smtp!.nextMessageTo(email));

    const wrong = await sb.auth.verifyOtp({ email, token: code === '000000' ? '111111' : '000000', type: 'email' });
    expect(wrong.error).toMatchObject({ status: 403, code: 'otp_expired' });

    const { data, error } = await sb.auth.verifyOtp({ email, token: code, type: 'email' });
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ email, email_confirmed_at: expect.any(String) });
    expect(claimsOf(data.session!.access_token).amr).toEqual([{ method: 'otp', timestamp: expect.any(Number) }]);
    expect(events).toEqual(['SIGNED_IN']);
    // The code is spent.
    const again = await s.client().sb.auth.verifyOtp({ email, token: code, type: 'email' });
    expect(again.error).toMatchObject({ code: 'otp_expired' });
  });

  it('shouldCreateUser false refuses an unknown address (otp_disabled) and sends nothing', async () => {
    const { sb } = s.client();
    const email = newEmail('nocreate');
    const res = await sb.auth.signInWithOtp({ email, options: { shouldCreateUser: false } });
    expect(res.error).toMatchObject({ status: 422, code: 'otp_disabled' });
    expect(s.smtp!.pendingFor(email)).toEqual([]);
  });

  it('a second code to the same address at once is over_email_send_rate_limit (429)', async () => {
    const { sb } = s.client();
    const email = newEmail('limit');
    expect((await sb.auth.signInWithOtp({ email })).error).toBeNull();
    await s.smtp!.nextMessageTo(email);
    const second = await sb.auth.signInWithOtp({ email });
    expect(second.error).toMatchObject({ status: 429, code: 'over_email_send_rate_limit' });
  });

  it('recovery: resetPasswordForEmail answers {} for anyone; the code signs in (PASSWORD_RECOVERY) and updateUser sets the password', async () => {
    const { sb: owner } = s.client();
    const email = newEmail('reset');
    expect((await owner.auth.signUp({ email, password: PASSWORD })).error).toBeNull();

    const { sb, events } = s.client();
    expect(await sb.auth.resetPasswordForEmail(newEmail('nobody'))).toEqual({ data: {}, error: null });
    expect(await sb.auth.resetPasswordForEmail(email)).toEqual({ data: {}, error: null });
    const code = codeFrom(await s.smtp!.nextMessageTo(email));
    const verified = await sb.auth.verifyOtp({ email, token: code, type: 'recovery' });
    expect(verified.error).toBeNull();
    expect(events).toEqual(['PASSWORD_RECOVERY']);
    expect((await sb.auth.updateUser({ password: 'recovered-pass-2' })).error).toBeNull();
    // The session signed in with the old password ended; the new password works.
    expect((await owner.auth.getUser()).error).not.toBeNull();
    expect((await s.client().sb.auth.signInWithPassword({ email, password: 'recovered-pass-2' })).error).toBeNull();
  });

  it('with confirmation required, signUp returns the user without a session; verifyOtp type signup opens one', async () => {
    await setAuthConfig({ requireEmailVerification: true });
    try {
      const { sb } = s.client();
      const email = newEmail('confirm');
      const { data, error } = await sb.auth.signUp({ email, password: PASSWORD });
      expect(error).toBeNull();
      expect(data.session).toBeNull();
      expect(data.user).toMatchObject({ email, email_confirmed_at: null });
      const unconfirmed = await sb.auth.signInWithPassword({ email, password: PASSWORD });
      expect(unconfirmed.error).toMatchObject({ status: 400, code: 'email_not_confirmed' });

      const code = codeFrom(await s.smtp!.nextMessageTo(email));
      const verified = await sb.auth.verifyOtp({ email, token: code, type: 'signup' });
      expect(verified.error).toBeNull();
      expect(verified.data.user).toMatchObject({ email, email_confirmed_at: expect.any(String) });
    } finally {
      await setAuthConfig({ requireEmailVerification: DEFAULT_AUTH_CONFIG.requireEmailVerification });
    }
  });
});

describe('admin users (service_role key)', () => {
  it('createUser, getUserById, listUsers by page, updateUserById, deleteUser, then user_not_found', async () => {
    const admin = s.admin();
    const email = newEmail('admin');
    const created = await admin.auth.admin.createUser({
      email,
      password: PASSWORD,
      email_confirm: true,
      user_metadata: { name: 'Grace' },
    });
    expect(created.error).toBeNull();
    expect(created.data.user).toMatchObject({
      email,
      email_confirmed_at: expect.any(String),
      user_metadata: { name: 'Grace' },
    });
    const id = created.data.user!.id;

    const duplicate = await admin.auth.admin.createUser({ email, password: PASSWORD });
    expect(duplicate.error).toMatchObject({ status: 422, code: 'email_exists' });

    expect((await admin.auth.admin.getUserById(id)).data.user).toMatchObject({ id, email });

    await admin.auth.admin.createUser({ email: newEmail('admin'), password: PASSWORD });
    const page = await admin.auth.admin.listUsers({ page: 1, perPage: 1 });
    expect(page.error).toBeNull();
    expect(page.data.users).toHaveLength(1);
    expect(page.data).toMatchObject({ nextPage: 2, total: expect.any(Number) });
    expect((page.data as { total: number }).total).toBeGreaterThanOrEqual(2);

    const updated = await admin.auth.admin.updateUserById(id, { user_metadata: { role: 'editor' } });
    expect(updated.data.user!.user_metadata).toEqual({ name: 'Grace', role: 'editor' });

    // The new user signs in with supabase-js, then an admin password change ends that session.
    const { sb } = s.client();
    expect((await sb.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    expect((await admin.auth.admin.updateUserById(id, { password: 'admin-set-3' })).error).toBeNull();
    expect((await sb.auth.getUser()).error).not.toBeNull();

    expect((await admin.auth.admin.deleteUser(id)).error).toBeNull();
    const gone = await admin.auth.admin.getUserById(id);
    expect(gone.error).toMatchObject({ status: 404, code: 'user_not_found' });
  });

  it('the anon key and a user token are refused on the admin API (403 not_admin)', async () => {
    const { sb } = s.client();
    const anonList = await sb.auth.admin.listUsers();
    expect(anonList.error).toMatchObject({ status: 403, code: 'not_admin' });
    const { data } = await sb.auth.signUp({ email: newEmail(), password: PASSWORD });
    const res = await fetch(`${s.url}/auth/v1/admin/users`, {
      method: 'POST',
      headers: {
        apikey: s.t.anonKey,
        authorization: `Bearer ${data.session!.access_token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ email: newEmail(), password: PASSWORD, email_confirm: true }),
    });
    expect(res.status).toBe(403);
  });
});
