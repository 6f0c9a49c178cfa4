// Without any SMTP settings (the embedded default) emails go to the log: the flows still answer
// as usual, and nothing reaches an SMTP server until the admin configures one through the API.
// The peer here is started but not given to Plinth, to show that nothing is sent to it.
import { describe, expect, it } from 'vitest';
import { codeFrom, type SmtpPeer } from '../../harness/smtp-peer.js';
import { bearer, type TestApp } from '../../harness/test-app.js';
import { type EmailApi, SIGN_IN_CODE_MESSAGE, uniqueEmail, useEmailTestApp } from './email-helpers.js';

let t: TestApp;
let peer: SmtpPeer;
let api: EmailApi;
useEmailTestApp({ smtp: false, resetConfigAfterEach: false }, (ctx) => ({ t, peer, api } = ctx));

const smtpConfig = () => t.request({ method: 'GET', url: '/api/auth/smtp-config', headers: bearer(t.apiKey) });

describe('no SMTP configured', () => {
  it('the SMTP settings say the log is in use', async () => {
    const res = await smtpConfig();
    expect(res.statusCode).toBe(200);
    expect(res.json).toMatchObject({ enabled: false, source: 'log', hasPassword: false });
  });

  it('send-otp still answers 202 with the generic message', async () => {
    const res = await api.sendOtp(uniqueEmail('log'));
    expect(res.statusCode).toBe(202);
    expect(res.json).toEqual({ success: true, message: SIGN_IN_CODE_MESSAGE });
    expect(peer.messages).toEqual([]);
  });

  it('registration under requireEmailVerification succeeds (the verification email is logged)', async () => {
    await api.setConfig({ requireEmailVerification: true });
    try {
      const res = await api.register({ email: uniqueEmail('log-reg'), password: 'password-123' });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json).toMatchObject({ accessToken: null, requireEmailVerification: true });
      expect(peer.messages).toEqual([]);
    } finally {
      await api.resetConfig();
    }
  });

  it('SMTP settings set through the admin API take effect for the next email, and can be switched off', async () => {
    const put = await t.request({
      method: 'PUT',
      url: '/api/auth/smtp-config',
      headers: bearer(t.apiKey),
      payload: { enabled: true, host: '127.0.0.1', port: peer.port, senderEmail: 'configured@plinth.test' },
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json).toMatchObject({ enabled: true, source: 'api' });

    const email = uniqueEmail('configured');
    expect((await api.sendOtp(email)).statusCode).toBe(202);
    const message = await peer.nextMessageTo(email);
    expect(message.from).toContain('configured@plinth.test');
    expect((await api.otpSignIn(email, codeFrom(message))).statusCode).toBe(200);

    const off = await t.request({
      method: 'PUT',
      url: '/api/auth/smtp-config',
      headers: bearer(t.apiKey),
      payload: { enabled: false },
    });
    expect(off.json).toMatchObject({ enabled: false, source: 'log' });
    const unsent = uniqueEmail('unsent');
    expect((await api.sendOtp(unsent)).statusCode).toBe(202);
    expect(peer.pendingFor(unsent)).toEqual([]);
  });
});
