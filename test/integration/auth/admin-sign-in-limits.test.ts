// The admin sign-in under a flood of wrong passwords: failed attempts are limited per IP and for
// the admin account (the same machinery as users' sign-ins), and password hashing has a bounded
// queue, so a flood is refused with 503 + Retry-After instead of slowing every sign-in down.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_ADMIN, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
beforeAll(async () => {
  // One hashing slot and two waiting: the bound is reached by a handful of concurrent requests.
  t = await startTestApp({ env: { PASSWORD_HASH_CONCURRENCY: '1', PASSWORD_HASH_QUEUE_MAX: '2' } });
});
afterAll(() => t.close());

const adminSignIn = (password: string, ip: string) =>
  t.request({
    method: 'POST',
    url: '/api/auth/admin/sessions?client_type=server',
    payload: { ...TEST_ADMIN, password },
    remoteAddress: ip,
  });

describe('admin sign-in limits', () => {
  it('one IP: 429 with Retry-After after 10 wrong passwords, even with the right one; other IPs still sign in', async () => {
    const attacker = '203.0.113.7';
    for (let i = 0; i < 10; i++) expect((await adminSignIn(`wrong-${i}`, attacker)).statusCode).toBe(401);
    const refused = await adminSignIn('wrong-again', attacker);
    expect(refused.statusCode).toBe(429);
    expect(refused.json).toMatchObject({ error: 'TOO_MANY_REQUESTS', nextActions: expect.stringContaining('Retry') });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await adminSignIn(TEST_ADMIN.password, attacker)).statusCode).toBe(429);
    expect((await adminSignIn(TEST_ADMIN.password, '198.51.100.1')).statusCode).toBe(200);
  });

  it('many IPs: the admin account locks when its limit fills, for one bounded window, then the right password works', async () => {
    // The admin's own override (default 50 per 15 minutes), to keep the test short.
    const limits = (limit: Record<string, unknown>) =>
      t.request({
        method: 'PUT',
        url: '/api/auth/rate-limits',
        headers: { 'x-api-key': t.apiKey },
        payload: { limits: [limit] },
      });
    expect((await limits({ name: 'failed-admin-sign-in:account', max: 5, windowSeconds: 900 })).statusCode).toBe(200);
    try {
      for (let i = 0; i < 5; i++) expect((await adminSignIn('wrong', `192.0.2.${i + 1}`)).statusCode).toBe(401);
      expect((await adminSignIn(TEST_ADMIN.password, '198.51.100.2')).statusCode).toBe(429);
      t.clock.advance(15 * 60 * 1000);
      expect((await adminSignIn(TEST_ADMIN.password, '198.51.100.2')).statusCode).toBe(200);
    } finally {
      await limits({ name: 'failed-admin-sign-in:account', reset: true });
    }
  });
});

describe('password hashing queue', () => {
  it('past its bound, concurrent sign-ins are refused with 503 + Retry-After; the rest are answered', async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        t.request({
          method: 'POST',
          url: '/api/auth/sessions?client_type=mobile',
          payload: { email: `nobody-${i}@example.com`, password: 'wrong-password-1' },
          remoteAddress: `10.9.0.${i + 1}`,
        }),
      ),
    );
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s !== 401 && s !== 503)).toEqual([]);
    const busy = answers.filter((a) => a.statusCode === 503);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy[0]!.headers['retry-after']).toBe('1');
    expect(busy[0]!.json).toMatchObject({ error: 'SERVICE_UNAVAILABLE', nextActions: expect.any(String) });
    expect(statuses.filter((s) => s === 401).length).toBeGreaterThanOrEqual(3);
  });
});
