// Rate limits of the email flows, counted in PostgreSQL and adjustable by the admin at run time:
// a 60 s cooldown per address and purpose, 10 emails per address per hour, 100 sends per IP per
// 15 minutes (so users sharing one IP are not refused at the 6th email), and failed code checks
// counted per address (10 per 15 minutes) and per IP (100), so one user's wrong codes do not lock
// out their neighbours; 429 TOO_MANY_REQUESTS with Retry-After. Never revealing registration.
// Also: a send that could not be delivered keeps no cooldown.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { codeFrom, type SmtpPeer } from '../../harness/smtp-peer.js';
import type { TestApp } from '../../harness/test-app.js';
import { type EmailApi, type emailApi, freshIp, uniqueEmail, useEmailTestApp, wrongCode } from './email-helpers.js';

let t: TestApp;
let peer: SmtpPeer;
let api: EmailApi;
useEmailTestApp({ smtp: true, resetConfigAfterEach: true }, (ctx) => ({ t, peer, api } = ctx));
afterEach(() => api.resetLimits());

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
  it.each(senders)(
    '%s: a second send within 60 s is 429 with Retry-After, from any IP; after 60 s it is accepted',
    async (_name, send) => {
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
    },
  );

  it.each(senders)(
    '%s: an unregistered address gets exactly the same answers (no enumeration)',
    async (_name, send) => {
      await api.setConfig({ requireEmailVerification: true });
      const registered = uniqueEmail('reg');
      expect((await api.register({ email: registered, password: 'password-123' })).statusCode).toBe(200);
      await peer.nextMessageTo(registered);
      const unregistered = uniqueEmail('unreg');

      const answers = [];
      for (const email of [registered, unregistered]) {
        const first = await send(email, freshIp());
        const second = await send(email, freshIp());
        answers.push({
          first: [first.statusCode, first.body],
          second: [second.statusCode, second.body, second.headers['retry-after']],
        });
      }
      expect(answers[0]!.second[0]).toBe(429);
      expect(answers[1]).toEqual(answers[0]);
    },
  );

  it('addresses are matched case-insensitively', async () => {
    const email = uniqueEmail('case');
    expect((await api.sendOtp(email, freshIp())).statusCode).toBe(202);
    await peer.nextMessageTo(email);
    expectTooMany(await api.sendOtp(email.toUpperCase(), freshIp()), 60);
  });
});

describe('sends per IP (100 per 15 minutes by default, set by the admin)', () => {
  it('twenty users behind one IP (an office NAT, a server-side app) each get their sign-in code', async () => {
    const ip = freshIp();
    for (let i = 0; i < 20; i++) {
      const email = uniqueEmail('nat');
      expect((await api.sendOtp(email, ip)).statusCode, `user ${i + 1}`).toBe(202);
      await peer.nextMessageTo(email);
    }
  });

  it.each(senders)(
    "%s: past the admin's per-IP limit the next send is 429; another IP is unaffected; the window ends",
    async (_name, send) => {
      await api.setLimits([{ name: 'email-send:ip', max: 5, windowSeconds: 15 * 60 }]);
      const ip = freshIp();
      for (let i = 0; i < 5; i++) expect((await send(uniqueEmail('ip'), ip)).statusCode).toBe(202);
      const sixth = await send(uniqueEmail('ip'), ip);
      expectTooMany(sixth, 15 * 60);
      expect((await send(uniqueEmail('ip'), freshIp())).statusCode).toBe(202);

      t.clock.advance(FIFTEEN_MINUTES);
      expect((await send(uniqueEmail('ip'), ip)).statusCode).toBe(202);
    },
  );

  it('the three sends share the per-IP budget, and an address refused by it gets no email', async () => {
    await api.setLimits([{ name: 'email-send:ip', max: 5, windowSeconds: 15 * 60 }]);
    const ip = freshIp();
    for (let i = 0; i < 5; i++) {
      const email = uniqueEmail('ip-mail');
      expect((await senders[i % 3]![1](email, ip)).statusCode).toBe(202);
    }
    const refused = uniqueEmail('refused');
    expect((await api.sendOtp(refused, ip)).statusCode).toBe(429);
    expect(peer.pendingFor(refused)).toEqual([]);
  });
});

describe('emails per address (10 per hour, every purpose together)', () => {
  it('the 11th email to one address within the hour is 429, registered or not, from any IP; the hour ends', async () => {
    const email = uniqueEmail('bomb');
    for (let i = 0; i < 10; i++) {
      expect((await senders[i % 3]![1](email, freshIp())).statusCode, `email ${i + 1}`).toBe(202);
      t.clock.advance(60_000);
    }
    expectTooMany(await api.sendOtp(email, freshIp()), 60 * 60);
    // Other addresses are unaffected.
    expect((await api.sendOtp(uniqueEmail('other'), freshIp())).statusCode).toBe(202);
    t.clock.advance(50 * 60_000);
    expect((await api.sendOtp(email, freshIp())).statusCode).toBe(202);
  });
});

describe('failed code checks: per address (10 per 15 minutes) and per IP (100)', () => {
  /** A live sign-in code for a fresh address, sent from an IP of its own. */
  async function liveCode() {
    const email = uniqueEmail('check');
    expect((await api.sendOtp(email, freshIp())).statusCode).toBe(202);
    return { email, code: codeFrom(await peer.nextMessageTo(email)) };
  }

  it('one user behind a shared IP fails 10 times: a neighbour with the right code still gets in', async () => {
    const ip = freshIp();
    const clumsy = uniqueEmail('clumsy');
    for (let i = 0; i < 10; i++)
      expect((await api.otpSignIn(clumsy, '000000', { ip })).statusCode, `failure ${i + 1}`).toBe(400);
    // The clumsy address is now blocked ...
    expectTooMany(await api.otpSignIn(clumsy, '000000', { ip }), 15 * 60);
    // ... but not the neighbour behind the same IP.
    const victim = await liveCode();
    expect((await api.otpSignIn(victim.email, victim.code, { ip })).statusCode).toBe(200);
  });

  it('10 failures for one address, from any IPs and endpoints, block that address even with the right code; the window ends', async () => {
    const victim = await liveCode();
    const failures = [
      () => api.verify(victim.email, '000000', { ip: freshIp() }),
      () => api.exchangeResetCode(victim.email, '000000', freshIp()),
    ];
    for (let i = 0; i < 10; i++) expect((await failures[i % 2]!()).statusCode, `failure ${i + 1}`).toBe(400);
    expectTooMany(await api.otpSignIn(victim.email, victim.code, { ip: freshIp() }), 15 * 60);
    t.clock.advance(FIFTEEN_MINUTES);
    const fresh = await api.sendOtp(victim.email, freshIp());
    expect(fresh.statusCode).toBe(202);
    const code = codeFrom(await peer.nextMessageTo(victim.email));
    expect((await api.otpSignIn(victim.email, code, { ip: freshIp() })).statusCode).toBe(200);
  });

  it('past the per-IP limit (set to 10 here) every check from that IP is 429, even the right code; another IP is unaffected', async () => {
    await api.setLimits([{ name: 'failed-code:ip', max: 10, windowSeconds: 15 * 60 }]);
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
    await api.setLimits([{ name: 'failed-code:ip', max: 10, windowSeconds: 15 * 60 }]);
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

  it('the per-IP block ends with its window', async () => {
    await api.setLimits([{ name: 'failed-code:ip', max: 10, windowSeconds: 15 * 60 }]);
    const ip = freshIp();
    for (let i = 0; i < 10; i++) expect((await api.verify(uniqueEmail('x'), '000000', { ip })).statusCode).toBe(400);
    expect((await api.verify(uniqueEmail('x'), '000000', { ip })).statusCode).toBe(429);
    t.clock.advance(FIFTEEN_MINUTES);
    const { email, code } = await liveCode();
    expect((await api.otpSignIn(email, code, { ip })).statusCode).toBe(200);
  });

  it('wrong codes for a live code count as failures too', async () => {
    await api.setLimits([{ name: 'failed-code:ip', max: 10, windowSeconds: 15 * 60 }]);
    const ip = freshIp();
    const targets = await Promise.all([liveCode(), liveCode(), liveCode(), liveCode()]);
    // Three wrong guesses per address (which also kills each code), ten in all.
    let n = 0;
    for (const { email, code } of targets) {
      for (let i = 0; i < 3 && n < 10; i++, n++)
        expect((await api.otpSignIn(email, wrongCode(code), { ip })).statusCode).toBe(400);
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
    expect(failed.json).toMatchObject({
      error: 'EMAIL_DELIVERY_FAILED',
      statusCode: 503,
      nextActions: expect.any(String),
    });
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
    // The email is sent after the answer, so its cooldown is given back a moment later: wait
    // (bounded) until a retry is accepted, with no 429 other than the cooldown's meanwhile.
    await vi.waitFor(
      async () => {
        const retried = await api.sendReset(email, undefined, freshIp());
        expect(retried.statusCode).toBe(202);
      },
      { timeout: 20_000, interval: 20 },
    );
    expect(codeFrom(await peer.nextMessageTo(email))).toMatch(/^\d{6}$/);
  });
});
