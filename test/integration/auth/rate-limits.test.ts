// Password sign-in and registration limits, and the admin's run-time control of every public
// limit: failed sign-ins per account (ASVS: at most 100 an hour, then the account is locked for an
// hour, after which the owner's correct password clears it) and per IP; sign-ups per IP; admin
// callers never limited per IP. Windows move with the injected clock.
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

let ipCounter = 0;
const freshIp = () => `10.77.${Math.floor(++ipCounter / 250) % 250}.${(ipCounter % 250) + 1}`;
const HOUR = 60 * 60_000;

const signIn = (email: string, password: string, ip = freshIp()) =>
  t.request({
    method: 'POST',
    url: '/api/auth/sessions?client_type=mobile',
    payload: { email, password },
    remoteAddress: ip,
  });
const register = (email: string, ip: string, headers: Record<string, string> = {}) =>
  t.request({
    method: 'POST',
    url: '/api/auth/users?client_type=mobile',
    payload: { email, password: 'password-123' },
    remoteAddress: ip,
    headers,
  });
const admin = () => ({ 'x-api-key': t.apiKey });
const getLimits = () => t.request({ method: 'GET', url: '/api/auth/rate-limits', headers: admin() });
const putLimits = (limits: unknown, headers: Record<string, string> = admin()) =>
  t.request({ method: 'PUT', url: '/api/auth/rate-limits', headers, payload: { limits } });

afterEach(async () => {
  const names = (await getLimits()).json.limits.map((l: { name: string }) => ({ name: l.name, reset: true }));
  expect((await putLimits(names)).statusCode).toBe(200);
});

function expectTooMany(res: { statusCode: number; json: any; headers: Record<string, unknown> }, retryAfter: number) {
  expect(res.statusCode).toBe(429);
  expect(res.json).toMatchObject({
    error: 'TOO_MANY_REQUESTS',
    statusCode: 429,
    message: expect.any(String),
    nextActions: expect.any(String),
  });
  expect(Number(res.headers['retry-after'])).toBe(retryAfter);
}

describe('failed password sign-ins per account (100 per hour, then locked for an hour)', () => {
  it('after 100 wrong passwords from many IPs the account is locked, even for the right password; an hour later the owner gets in', async () => {
    const owner = await t.signUp();
    for (let i = 0; i < 100; i++)
      expect((await signIn(owner.email, `wrong-${i}`)).statusCode, `guess ${i + 1}`).toBe(401);
    // Locked: the password is not even checked, so the lock is no oracle.
    expectTooMany(await signIn(owner.email, 'wrong-again'), 3600);
    expectTooMany(await signIn(owner.email, owner.password), 3600);

    t.clock.advance(HOUR - 1000);
    expectTooMany(await signIn(owner.email, owner.password), 1);
    t.clock.advance(1000);
    expect((await signIn(owner.email, owner.password)).statusCode).toBe(200);

    // The correct password cleared the counter: a typo afterwards is an ordinary 401.
    expect((await signIn(owner.email, 'typo')).statusCode).toBe(401);
    expect((await signIn(owner.email, owner.password)).statusCode).toBe(200);
  });

  it('other accounts are unaffected, and an unknown address is limited alike (no enumeration)', async () => {
    await putLimits([{ name: 'failed-sign-in:account', max: 3, windowSeconds: 600 }]);
    const victim = await t.signUp();
    const bystander = await t.signUp();
    const unknown = `nobody-${ipCounter}@example.com`;
    for (const email of [victim.email, unknown]) {
      for (let i = 0; i < 3; i++) expect((await signIn(email, 'wrong')).statusCode).toBe(401);
    }
    const lockedKnown = await signIn(victim.email, 'wrong');
    const lockedUnknown = await signIn(unknown, 'wrong');
    expectTooMany(lockedKnown, 600);
    expect(lockedUnknown.body).toBe(lockedKnown.body);
    expect((await signIn(bystander.email, bystander.password)).statusCode).toBe(200);
  });

  it('a correct password before the cap clears the counter', async () => {
    await putLimits([{ name: 'failed-sign-in:account', max: 3, windowSeconds: 600 }]);
    const owner = await t.signUp();
    for (let i = 0; i < 2; i++) expect((await signIn(owner.email, 'wrong')).statusCode).toBe(401);
    expect((await signIn(owner.email, owner.password)).statusCode).toBe(200);
    for (let i = 0; i < 2; i++) expect((await signIn(owner.email, 'wrong')).statusCode).toBe(401);
    expect((await signIn(owner.email, owner.password)).statusCode).toBe(200);
  });
});

describe('failed password sign-ins per IP (200 per 15 minutes; successes not counted)', () => {
  it('one IP guessing across accounts is refused past the limit; other IPs and accounts are unaffected', async () => {
    await putLimits([{ name: 'failed-sign-in:ip', max: 5, windowSeconds: 900 }]);
    const ip = freshIp();
    const user = await t.signUp();
    // Successes from the IP are not counted.
    for (let i = 0; i < 3; i++) expect((await signIn(user.email, user.password, ip)).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect((await signIn(`spray-${i}@example.com`, 'wrong', ip)).statusCode).toBe(401);
    expectTooMany(await signIn(user.email, user.password, ip), 900);
    expect((await signIn(user.email, user.password, freshIp())).statusCode).toBe(200);
    t.clock.advance(900_000);
    expect((await signIn(user.email, user.password, ip)).statusCode).toBe(200);
  });
});

describe('registration per IP (100 per 15 minutes)', () => {
  it('the sign-up past the limit is 429 before anything is checked; the admin is never limited per IP', async () => {
    await putLimits([{ name: 'register:ip', max: 3, windowSeconds: 900 }]);
    const ip = freshIp();
    const taken = (await t.signUp()).email;
    expect((await register(`r1-${ipCounter}@example.com`, ip)).statusCode).toBe(200);
    expect((await register(taken, ip)).statusCode).toBe(409);
    expect((await register(`r2-${ipCounter}@example.com`, ip)).statusCode).toBe(200);
    // A taken address no longer answers 409 from this IP.
    expectTooMany(await register(taken, ip), 900);
    expect((await register(`r3-${ipCounter}@example.com`, freshIp())).statusCode).toBe(200);
    expect((await register(`r4-${ipCounter}@example.com`, ip, admin())).statusCode).toBe(200);
  });
});

describe('GET/PUT /api/auth/rate-limits', () => {
  it('lists every limit with its default; a change applies at once on another server; reset restores the default', async () => {
    const listed = await getLimits();
    expect(listed.statusCode).toBe(200);
    const byName = Object.fromEntries(listed.json.limits.map((l: any) => [l.name, l]));
    expect(byName['failed-sign-in:account']).toMatchObject({
      max: 100,
      windowSeconds: 3600,
      custom: false,
      default: { max: 100, windowSeconds: 3600 },
    });
    expect(byName['email-send:ip']).toMatchObject({ max: 100, windowSeconds: 900 });
    expect(byName['register:ip']).toMatchObject({ max: 100, windowSeconds: 900, updatedAt: null });

    const changed = await putLimits([{ name: 'register:ip', max: 1, windowSeconds: 60 }]);
    expect(changed.statusCode).toBe(200);
    expect(changed.json.limits.find((l: any) => l.name === 'register:ip')).toMatchObject({
      max: 1,
      windowSeconds: 60,
      custom: true,
      updatedAt: expect.any(String),
    });

    const other = await t.startAnotherServer();
    try {
      const ip = freshIp();
      const onOther = (email: string) =>
        other.app.inject({
          method: 'POST',
          url: '/api/auth/users?client_type=mobile',
          payload: { email, password: 'password-123' },
          remoteAddress: ip,
        });
      expect((await onOther(`o1-${ipCounter}@example.com`)).statusCode).toBe(200);
      const refused = await onOther(`o2-${ipCounter}@example.com`);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toBe('60');

      expect(
        (await putLimits([{ name: 'register:ip', reset: true }])).json.limits.find(
          (l: any) => l.name === 'register:ip',
        ),
      ).toMatchObject({ max: 100, custom: false });
      expect((await onOther(`o3-${ipCounter}@example.com`)).statusCode).toBe(200);
    } finally {
      await other.close();
    }
  });

  it.each([
    ['an unknown name', [{ name: 'nope', max: 1, windowSeconds: 1 }]],
    ['max 0', [{ name: 'register:ip', max: 0, windowSeconds: 60 }]],
    ['a window over a week', [{ name: 'register:ip', max: 1, windowSeconds: 8 * 86_400 }]],
    [
      'a name twice',
      [
        { name: 'register:ip', reset: true },
        { name: 'register:ip', max: 2, windowSeconds: 60 },
      ],
    ],
    ['an empty list', []],
    ['an unknown field', [{ name: 'register:ip', max: 1, windowSeconds: 60, burst: 2 }]],
  ])('%s is a 400 VALIDATION_ERROR', async (_label, limits) => {
    const res = await putLimits(limits);
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({ error: 'VALIDATION_ERROR', statusCode: 400 });
  });

  it('a user token or the anon key cannot read or change limits', async () => {
    const user = await t.signUp();
    expect((await putLimits([{ name: 'register:ip', reset: true }], bearer(user.accessToken))).statusCode).toBe(403);
    expect(
      (await t.request({ method: 'GET', url: '/api/auth/rate-limits', headers: bearer(t.anonKey) })).statusCode,
    ).toBe(403);
  });
});
