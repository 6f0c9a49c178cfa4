// Rate limits of the email flows (contract §2.6 numbers are the floor): a 60 s cooldown per
// address that never reveals registration, 5 sends per IP per 15 minutes, and 10 failed code
// checks per IP per 15 minutes (successes not counted); 429 TOO_MANY_REQUESTS with Retry-After.
// Also: a send that could not be delivered keeps no cooldown.
import { describe, expect, it } from 'vitest';
import { codeFrom, type SmtpPeer } from '../../harness/smtp-peer.js';
import { type TestApp } from '../../harness/test-app.js';
import { type EmailApi, emailApi, freshIp, uniqueEmail, useEmailTestApp, wrongCode } from './email-helpers.js';

let t: TestApp;
let peer: SmtpPeer;
let api: EmailApi;
useEmailTestApp({ smtp: true, resetConfigAfterEach: true }, (ctx) => ({ t, peer, api } = ctx));

const FIFTEEN_MINUTES = 15 * 60_000;

function expectTooMany(res: { statusCode: number; json: any; headers: Record<string, unknown> }, maxSeconds: number) {
  expect(res.statusCode).toBe(429);
  expect(res.json).toMatchObject({ error: 'TOO_MANY_REQUESTS', statusCode: 429, message: expect.any(String) });
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(maxSeconds);
  return retryAfter;
}

type Send = (email: string, ip: string) => ReturnType<ReturnType<typeof emailApi>['post']>;
const senders: [string, Send][] = [
  ['send-otp', (email, ip) => api.sendOtp(email, ip)],
  ['send-verification', (email, ip) => api.sendVerification(email, undefined, ip)],
  ['send-reset-password', (email, ip) => api.sendReset(email, undefined, ip)],
];

describe('per-address cooldown (60 s)', () => {
  it.each(senders)('%s: a second send within 60 s is 429 with Retry-After, from any IP; after 60 s it is accepted', async (_name, send) => {
    await api.setConfig({ requireEmailVerification: true });
    // An unverified registered account, so every endpoint really mails it.
    const email = uniqueEmail('cooldown');
    const registered = await api.register({ email, password: 'password-123' });
    expect(registered.statusCode).toBe(200);
    await peer.nextMessageTo(email);

    expect((await send(email, freshIp())).statusCode).toBe(202);
    await peer.nextMessageTo(email);

    const early = await send(email, freshIp());
    expect(expectTooMany(early, 60)).toBe(60);
    t.clock.advance(59_000);
    expect(expectTooMany(await send(email, freshIp()), 60)).toBe(1);
    expect(peer.pendingFor(email)).toEqual([]);

    t.clock.advance(1000);
    expect((await send(email, freshIp())).statusCode).toBe(202);
    await peer.nextMessageTo(email);
  });

  it.each(senders)('%s: an unregistered address gets exactly the same answers (no enumeration)', async (_name, send) => {
    await api.setConfig({ requireEmailVerification: true });
    const registered = uniqueEmail('reg');
    expect((await api.register({ email: registered, password: 'password-123' })).statusCode).toBe(200);
    await peer.nextMessageTo(registered);
    const unregistered = uniqueEmail('unreg');

    const answers = [];
    for (const email of [registered, unregistered]) {
      const first = await send(email, freshIp());
      const second = await send(email, freshIp());
      answers.push({ first: [first.statusCode, first.body], second: [second.statusCode, second.body, second.headers['retry-after']] });
    }
    expect(answers[0]!.second[0]).toBe(429);
    expect(answers[1]).toEqual(answers[0]);
  });

  it('addresses are matched case-insensitively', async () => {
    const email = uniqueEmail('case');
    expect((await api.sendOtp(email, freshIp())).statusCode).toBe(202);
    await peer.nextMessageTo(email);
    expectTooMany(await api.sendOtp(email.toUpperCase(), freshIp()), 60);
  });
});

describe('sends per IP (5 per 15 minutes)', () => {
  it.each(senders)('%s: the 6th send from one IP is 429; another IP is unaffected; the window ends', async (_name, send) => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) expect((await send(uniqueEmail('ip'), ip)).statusCode).toBe(202);
    const sixth = await send(uniqueEmail('ip'), ip);
    expectTooMany(sixth, 15 * 60);
    expect((await send(uniqueEmail('ip'), freshIp())).statusCode).toBe(202);

    t.clock.advance(FIFTEEN_MINUTES);
    expect((await send(uniqueEmail('ip'), ip)).statusCode).toBe(202);
  });

  it('an address refused by the IP limit gets no email', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) {
      const email = uniqueEmail('ip-mail');
      expect((await api.sendOtp(email, ip)).statusCode).toBe(202);
      await peer.nextMessageTo(email);
    }
    const refused = uniqueEmail('refused');
    expect((await api.sendOtp(refused, ip)).statusCode).toBe(429);
    expect(peer.pendingFor(refused)).toEqual([]);
  });
});

describe('failed code checks per IP (10 per 15 minutes)', () => {
  /** A live sign-in code for a fresh address, sent from an IP of its own. */
  async function liveCode() {
    const email = uniqueEmail('check');
    expect((await api.sendOtp(email, freshIp())).statusCode).toBe(202);
    return { email, code: codeFrom(await peer.nextMessageTo(email)) };
  }

  it('after 10 failures the 11th check is 429 even with the right code; another IP is unaffected', async () => {
    const ip = freshIp();
    const victim = await liveCode();
    // Failures on every code-checking endpoint count together.
    const failures = [
      () => api.otpSignIn(uniqueEmail('x'), '000000', { ip }),
      () => api.verify(uniqueEmail('x'), '000000', { ip }),
      () => api.exchangeResetCode(uniqueEmail('x'), '000000', ip),
      () => api.resetPassword('new-password-1', 'f'.repeat(64), ip),
    ];
    for (let i = 0; i < 10; i++) {
      const res = await failures[i % failures.length]!();
      expect(res.statusCode, `failure ${i + 1}`).toBe(400);
    }

    const blocked = await api.otpSignIn(victim.email, victim.code, { ip });
    expectTooMany(blocked, 15 * 60);
    for (const check of failures) expect((await check()).statusCode).toBe(429);

    // The right code was never checked, so it still works from elsewhere.
    expect((await api.otpSignIn(victim.email, victim.code, { ip: freshIp() })).statusCode).toBe(200);
  });

  it('successes are not counted', async () => {
    const ip = freshIp();
    for (let i = 0; i < 9; i++) expect((await api.otpSignIn(uniqueEmail('x'), '000000', { ip })).statusCode).toBe(400);
    for (let i = 0; i < 3; i++) {
      const { email, code } = await liveCode();
      expect((await api.otpSignIn(email, code, { ip })).statusCode).toBe(200);
    }
    // The tenth failure is still allowed: three successes did not fill the window.
    expect((await api.otpSignIn(uniqueEmail('x'), '000000', { ip })).statusCode).toBe(400);
    const { email, code } = await liveCode();
    expectTooMany(await api.otpSignIn(email, code, { ip }), 15 * 60);
  });

  it('the block ends with the 15-minute window', async () => {
    const ip = freshIp();
    for (let i = 0; i < 10; i++) expect((await api.verify(uniqueEmail('x'), '000000', { ip })).statusCode).toBe(400);
    expect((await api.verify(uniqueEmail('x'), '000000', { ip })).statusCode).toBe(429);
    t.clock.advance(FIFTEEN_MINUTES);
    const { email, code } = await liveCode();
    expect((await api.otpSignIn(email, code, { ip })).statusCode).toBe(200);
  });

  it('wrong codes for a live code count as failures too', async () => {
    const ip = freshIp();
    const targets = await Promise.all([liveCode(), liveCode(), liveCode(), liveCode()]);
    // Three wrong guesses per address (which also kills each code), ten in all.
    let n = 0;
    for (const { email, code } of targets) {
      for (let i = 0; i < 3 && n < 10; i++, n++) expect((await api.otpSignIn(email, wrongCode(code), { ip })).statusCode).toBe(400);
    }
    const { email, code } = await liveCode();
    expect((await api.otpSignIn(email, code, { ip })).statusCode).toBe(429);
  });
});

describe('delivery failure', () => {
  it('a failed send-otp is 503 with nextActions and keeps no cooldown: an immediate retry delivers a working code', async () => {
    const email = uniqueEmail('fail');
    peer.failNext();
    const failed = await api.sendOtp(email, freshIp());
    expect(failed.statusCode).toBe(503);
    expect(failed.json).toMatchObject({ error: 'EMAIL_DELIVERY_FAILED', statusCode: 503, nextActions: expect.any(String) });
    expect(peer.pendingFor(email)).toEqual([]);

    const retried = await api.sendOtp(email, freshIp());
    expect(retried.statusCode).toBe(202);
    const code = codeFrom(await peer.nextMessageTo(email));
    expect((await api.otpSignIn(email, code)).statusCode).toBe(200);
  });

  it('a failed send-reset-password answers like an unknown address (202) and can be retried at once', async () => {
    const { email } = await t.signUp(uniqueEmail('fail-reset'));
    const unknown = await api.sendReset(uniqueEmail('fail-reset-unknown'), undefined, freshIp());
    peer.failNext();
    const failed = await api.sendReset(email, undefined, freshIp());
    // A 503 only for registered addresses would tell who is registered.
    expect(failed.statusCode).toBe(202);
    expect(failed.body).toBe(unknown.body);
    expect(peer.pendingFor(email)).toHaveLength(0);
    expect((await api.sendReset(email, undefined, freshIp())).statusCode).toBe(202);
    expect(codeFrom(await peer.nextMessageTo(email))).toMatch(/^\d{6}$/);
  });
});
