// Recovery codes (single use, raise to aal2 with amr "recovery", regenerated only at aal2, wrong
// ones limited), the admin's view of a user's factors (list, remove; audited), an RLS policy on
// auth.jwt()->>'aal' through the records API, and "require MFA for the project admin".
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimsOf, totpCode, userWithFactor } from '../../harness/mfa.js';
import { passwordSignIn } from '../../harness/sessions.js';
import { bearer, startTestApp, TEST_ADMIN, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const admin = () => bearer(t.apiKey);
const useRecovery = (accessToken: string, code: string) =>
  t.request({
    method: 'POST',
    url: '/api/auth/mfa/recovery?client_type=mobile',
    headers: bearer(accessToken),
    payload: { code },
  });
const regenerate = (accessToken: string) =>
  t.request({ method: 'POST', url: '/api/auth/mfa/recovery-codes', headers: bearer(accessToken) });
const aal1TokenOf = async (user: { email: string; password: string }) =>
  (await passwordSignIn(t, user, 'mobile')).json.accessToken as string;

describe('recovery codes', () => {
  it('one raises an aal1 session to aal2 (amr recovery) and works once', async () => {
    const user = await userWithFactor(t);
    const token = await aal1TokenOf(user);
    const res = await useRecovery(token, user.recoveryCodes[0]!.toUpperCase());
    expect(res.statusCode, res.body).toBe(200);
    expect(claimsOf(res.json.accessToken)).toMatchObject({
      aal: 'aal2',
      amr: [{ method: 'password' }, { method: 'recovery' }],
    });
    const again = await useRecovery(await aal1TokenOf(user), user.recoveryCodes[0]!);
    expect(again.statusCode).toBe(400);
    expect(again.json.error).toBe('AUTH_MFA_VERIFICATION_FAILED');
    const list = await t.request({
      method: 'GET',
      url: '/api/auth/mfa/factors',
      headers: bearer(res.json.accessToken),
    });
    expect(list.json.recoveryCodesRemaining).toBe(9);
  });

  it("another user's code does not work", async () => {
    const [a, b] = [await userWithFactor(t), await userWithFactor(t)];
    expect((await useRecovery(await aal1TokenOf(b), a.recoveryCodes[0]!)).statusCode).toBe(400);
  });

  it('regenerating needs aal2, and the old codes stop working', async () => {
    const user = await userWithFactor(t);
    const refused = await regenerate(await aal1TokenOf(user));
    expect(refused.statusCode).toBe(403);
    expect(refused.json.error).toBe('AUTH_INSUFFICIENT_AAL');
    expect((await useRecovery(await aal1TokenOf(user), user.recoveryCodes[1]!)).statusCode).toBe(200);

    const res = await regenerate(user.aal2.accessToken);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json.recoveryCodes).toHaveLength(10);
    expect((await useRecovery(await aal1TokenOf(user), user.recoveryCodes[2]!)).statusCode).toBe(400);
    expect((await useRecovery(await aal1TokenOf(user), res.json.recoveryCodes[0])).statusCode).toBe(200);
  });

  it('five wrong codes lock recovery for the user (even a right code) for fifteen minutes', async () => {
    const user = await userWithFactor(t);
    const token = await aal1TokenOf(user);
    for (let i = 0; i < 5; i++) expect((await useRecovery(token, `wrong-${i}`)).statusCode).toBe(400);
    const locked = await useRecovery(token, user.recoveryCodes[0]!);
    expect(locked.statusCode).toBe(429);
    t.clock.advance(900_000);
    expect((await useRecovery(await aal1TokenOf(user), user.recoveryCodes[0]!)).statusCode).toBe(200);
  });
});

describe("the admin's view of a user's factors", () => {
  it('lists and removes them (audited); removing the last verified one also ends the recovery codes', async () => {
    const user = await userWithFactor(t);
    const list = await t.request({ method: 'GET', url: `/api/auth/users/${user.user.id}/factors`, headers: admin() });
    expect(list.statusCode).toBe(200);
    expect(list.json.data).toEqual([
      expect.objectContaining({ id: user.factorId, friendlyName: 'phone', status: 'verified' }),
    ]);

    const other = await t.signUp();
    const wrongUser = await t.request({
      method: 'DELETE',
      url: `/api/auth/users/${other.user.id}/factors/${user.factorId}`,
      headers: admin(),
    });
    expect(wrongUser.statusCode).toBe(404);
    expect(wrongUser.json.error).toBe('AUTH_MFA_FACTOR_NOT_FOUND');
    const unknownUser = await t.request({
      method: 'GET',
      url: `/api/auth/users/${randomUUID()}/factors`,
      headers: admin(),
    });
    expect(unknownUser.statusCode).toBe(404);

    const res = await t.request({
      method: 'DELETE',
      url: `/api/auth/users/${user.user.id}/factors/${user.factorId}`,
      headers: admin(),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await passwordSignIn(t, user, 'mobile')).json.mfa).toBeUndefined();
    expect((await useRecovery(await aal1TokenOf(user), user.recoveryCodes[0]!)).statusCode).toBe(400);

    await t.app.logs!.flush();
    const audits = await t.request({
      method: 'GET',
      url: `/api/logs/audits?module=AUTH&action=${encodeURIComponent('DELETE /api/auth/users/:userId/factors/:factorId')}`,
      headers: admin(),
    });
    expect(audits.json).toEqual([
      expect.objectContaining({
        details: expect.objectContaining({ target: { userId: user.user.id, factorId: user.factorId } }),
      }),
    ]);
  });

  it('users cannot call it', async () => {
    const user = await userWithFactor(t);
    const res = await t.request({
      method: 'DELETE',
      url: `/api/auth/users/${user.user.id}/factors/${user.factorId}`,
      headers: bearer(user.aal2.accessToken),
    });
    expect(res.statusCode).toBe(403);
  });
});

describe("row-level security on auth.jwt()->>'aal'", () => {
  it('an aal1 token sees no row, the aal2 token of the same user sees it', async () => {
    const run = (query: string) =>
      t.request({ method: 'POST', url: '/api/database/advance/rawsql', headers: admin(), payload: { query } });
    for (const query of [
      'create table public.mfa_secrets (id serial primary key, owner uuid not null, note text not null)',
      'alter table public.mfa_secrets enable row level security',
      "create policy aal2_only on public.mfa_secrets for select to authenticated using ((auth.jwt()->>'aal') = 'aal2' and owner = auth.uid())",
      'grant select on public.mfa_secrets to authenticated',
    ]) {
      const res = await run(query);
      expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
    }
    const user = await userWithFactor(t);
    expect(
      (await run(`insert into public.mfa_secrets (owner, note) values ('${user.user.id}', 'launch codes')`)).statusCode,
    ).toBe(200);
    const read = (token: string) =>
      t.request({ method: 'GET', url: '/api/database/records/mfa_secrets', headers: bearer(token) });

    const aal1 = await read(await aal1TokenOf(user));
    expect(aal1.statusCode, aal1.body).toBe(200);
    expect(aal1.json).toEqual([]);
    const aal2 = await read(user.aal2.accessToken);
    expect(aal2.json).toEqual([expect.objectContaining({ note: 'launch codes' })]);
  });
});

describe('require MFA for the project admin', () => {
  const signIn = (payload: Record<string, string>) =>
    t.request({
      method: 'POST',
      url: '/api/auth/admin/sessions?client_type=server',
      payload: { ...TEST_ADMIN, ...payload },
    });
  const settings = (requireAdminMfa: boolean) =>
    t.request({ method: 'PUT', url: '/api/auth/mfa/settings', headers: admin(), payload: { requireAdminMfa } });

  it('needs a verified admin factor, then the admin sign-in needs its current code (once)', async () => {
    const refused = await settings(true);
    expect(refused.statusCode).toBe(409);
    expect((await t.request({ method: 'GET', url: '/api/auth/mfa/settings', headers: admin() })).json).toEqual({
      requireAdminMfa: false,
    });

    const enrolled = await t.request({
      method: 'POST',
      url: '/api/auth/admin/mfa/factors',
      headers: admin(),
      payload: { friendlyName: 'admin phone' },
    });
    expect(enrolled.statusCode, enrolled.body).toBe(200);
    const secret = enrolled.json.totp.secret as string;
    const verifyAdmin = (totpCode: string) =>
      t.request({
        method: 'POST',
        url: `/api/auth/admin/mfa/factors/${enrolled.json.id}/verify`,
        headers: admin(),
        payload: { totpCode },
      });
    expect((await verifyAdmin('000000')).statusCode).toBe(totpCode(t, secret) === '000000' ? 200 : 400);
    const verified = await verifyAdmin(totpCode(t, secret));
    expect(verified.statusCode, verified.body).toBe(200);
    expect(verified.json.status).toBe('verified');
    expect((await settings(true)).json).toEqual({ requireAdminMfa: true });

    const missing = await signIn({});
    expect(missing.statusCode).toBe(401);
    expect(missing.json).toMatchObject({
      error: 'AUTH_MFA_REQUIRED',
      nextActions: expect.stringContaining('totpCode'),
    });
    const wrongPassword = await signIn({ password: 'not-the-password', totpCode: totpCode(t, secret) });
    expect(wrongPassword.statusCode).toBe(401);
    expect(wrongPassword.json.error).toBe('UNAUTHORIZED');
    // The code of the verification step is spent; the next step's is accepted, once.
    expect((await signIn({ totpCode: totpCode(t, secret) })).statusCode).toBe(400);
    t.clock.advance(30_000);
    const ok = await signIn({ totpCode: totpCode(t, secret) });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(claimsOf(ok.json.accessToken)).toMatchObject({ role: 'project_admin', aal: 'aal2' });
    expect((await signIn({ totpCode: totpCode(t, secret) })).statusCode).toBe(400);

    // The last verified factor cannot go while required; the API key turns the setting off.
    const removeLast = await t.request({
      method: 'DELETE',
      url: `/api/auth/admin/mfa/factors/${enrolled.json.id}`,
      headers: admin(),
    });
    expect(removeLast.statusCode).toBe(409);
    expect((await settings(false)).statusCode).toBe(200);
    expect((await signIn({})).statusCode).toBe(200);
  });
});
