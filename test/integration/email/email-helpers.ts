// Shared by the email flow tests: requests as a client makes them (with a chosen client IP, so
// per-IP limits of one test never touch another), unique addresses, and the auth configuration.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { codeFrom, startSmtpPeer, type SmtpPeer } from '../../harness/smtp-peer.js';
import { bearer, DEFAULT_AUTH_CONFIG, startTestApp, type TestApp } from '../../harness/test-app.js';
import { currentSession, refreshMobile } from '../../harness/sessions.js';

export const uniqueEmail = (tag = 'u') => `${tag}-${randomBytes(4).toString('hex')}@example.com`;

/** A new user who proved their address with the emailed code: the verified session's token. */
export async function verifiedUser(t: TestApp, peer: SmtpPeer) {
  const { email, password } = await t.signUp(uniqueEmail('verified'));
  const sent = await t.request({ method: 'POST', url: '/api/auth/email/send-verification', payload: { email } });
  expect(sent.statusCode, sent.body).toBe(202);
  const otp = codeFrom(await peer.nextMessageTo(email));
  const verified = await t.request({
    method: 'POST',
    url: '/api/auth/email/verify?client_type=mobile',
    payload: { email, otp },
  });
  expect(verified.statusCode, verified.body).toBe(200);
  return { token: verified.json.accessToken as string, id: verified.json.user.id as string, email, password };
}

let ipCounter = 0;
/** A client IP no other test of this file uses. */
export const freshIp = () => {
  ipCounter++;
  return `10.${Math.floor(ipCounter / 250) % 250}.${ipCounter % 250}.${1 + (ipCounter % 7)}`;
};

export const SIGN_IN_CODE_MESSAGE = 'If sign-in is available for this email, we have sent a verification code.';
export const INVALID_CODE = {
  error: 'VALIDATION_ERROR',
  message: 'Invalid or expired code',
  statusCode: 400,
};
export const INVALID_RESET_TOKEN = {
  error: 'VALIDATION_ERROR',
  message: 'Invalid or expired reset token.',
  statusCode: 400,
};

/** A 6-digit code that is certainly not `code`. */
export const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

export function emailApi(t: TestApp) {
  const post = (url: string, payload: Record<string, unknown>, ip: string = freshIp()) =>
    t.request({ method: 'POST', url, payload, remoteAddress: ip });

  async function setConfig(changes: Record<string, unknown>) {
    const res = await t.request({
      method: 'PUT',
      url: '/api/auth/config',
      headers: bearer(t.apiKey),
      payload: changes,
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json;
  }

  /** Sets rate limits as the admin does ({name, max, windowSeconds} or {name, reset: true}). */
  async function setLimits(limits: Record<string, unknown>[]) {
    const res = await t.request({
      method: 'PUT',
      url: '/api/auth/rate-limits',
      headers: bearer(t.apiKey),
      payload: { limits },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json;
  }

  return {
    post,
    setConfig,
    setLimits,
    /** Every rate limit back to its default. */
    resetLimits: async () => {
      const res = await t.request({ method: 'GET', url: '/api/auth/rate-limits', headers: bearer(t.apiKey) });
      return setLimits(res.json.limits.map((l: { name: string }) => ({ name: l.name, reset: true })));
    },
    resetConfig: () => setConfig(DEFAULT_AUTH_CONFIG),

    register: (payload: Record<string, unknown>, clientType = 'mobile', ip?: string) =>
      post(`/api/auth/users?client_type=${clientType}`, payload, ip),

    passwordSignIn: (email: string, password: string, clientType = 'mobile') =>
      post(`/api/auth/sessions?client_type=${clientType}`, { email, password }),

    sendOtp: (email: string, ip?: string) => post('/api/auth/email/send-otp', { email }, ip),

    otpSignIn: (email: string, otp: string, opts: { ip?: string; clientType?: string; name?: string } = {}) =>
      post(
        `/api/auth/sessions?client_type=${opts.clientType ?? 'mobile'}`,
        { method: 'otp', email, otp, ...(opts.name ? { name: opts.name } : {}) },
        opts.ip,
      ),

    sendVerification: (email: string, redirectTo?: string, ip?: string) =>
      post('/api/auth/email/send-verification', { email, ...(redirectTo ? { redirectTo } : {}) }, ip),

    verify: (email: string, otp: string, opts: { ip?: string; clientType?: string } = {}) =>
      post(`/api/auth/email/verify?client_type=${opts.clientType ?? 'mobile'}`, { email, otp }, opts.ip),

    sendReset: (email: string, redirectTo?: string, ip?: string) =>
      post('/api/auth/email/send-reset-password', { email, ...(redirectTo ? { redirectTo } : {}) }, ip),

    exchangeResetCode: (email: string, code: string, ip?: string) =>
      post('/api/auth/email/exchange-reset-password-token', { email, code }, ip),

    resetPassword: (newPassword: string, otp: string, ip?: string) =>
      post('/api/auth/email/reset-password', { newPassword, otp }, ip),

    /** Opens an emailed link the way a browser does (path and query only; inject has no host). */
    openLink: (link: URL) => t.request({ method: 'GET', url: `${link.pathname}${link.search}` }),

    refresh: (refreshToken: string) => refreshMobile(t, refreshToken),

    currentSession: (accessToken: string) => currentSession(t, accessToken),

    /** Users whose email matches exactly, as the admin's list shows them. */
    async usersWithEmail(email: string) {
      const res = await t.request({
        method: 'GET',
        url: `/api/auth/users?search=${encodeURIComponent(email)}`,
        headers: bearer(t.apiKey),
      });
      expect(res.statusCode).toBe(200);
      return (res.json.data as { email: string }[]).filter((u) => u.email === email.toLowerCase()) as any[];
    },
  };
}

/** The query parameters of a redirect's Location, and the Location without them. */
export function redirectOf(location: string | undefined) {
  expect(location, 'a Location header').toEqual(expect.any(String));
  const url = new URL(location!);
  const params = Object.fromEntries(url.searchParams.entries());
  const base = location!.split('?')[0];
  return { url, params, base };
}

export type EmailApi = ReturnType<typeof emailApi>;

/**
 * One app and one SMTP peer for a test file (`smtp: false` leaves Plinth on the log transport
 * while the peer still runs); `use` receives them once started.
 */
export function useEmailTestApp(
  options: { smtp: boolean; resetConfigAfterEach: boolean },
  use: (ctx: { t: TestApp; peer: SmtpPeer; api: EmailApi }) => void,
): void {
  let ctx: { t: TestApp; peer: SmtpPeer; api: EmailApi } | undefined;
  beforeAll(async () => {
    const peer = await startSmtpPeer();
    const t = await startTestApp(options.smtp ? { env: peer.env } : {});
    ctx = { t, peer, api: emailApi(t) };
    use(ctx);
  });
  afterAll(async () => {
    await ctx?.t.close();
    await ctx?.peer.close();
  });
  // Configuration is one row per database: every test starts from the defaults.
  if (options.resetConfigAfterEach) afterEach(() => ctx?.api.resetConfig());
}
