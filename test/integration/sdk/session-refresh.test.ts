// The official JavaScript client with an expired access token, against a listening Plinth (Deno
// runtime and processor peer included). Plinth answers the expired token with 401
// AUTH_UNAUTHORIZED (api-contract Part A item 14), the code on which the client refreshes by itself
// and retries: in browser mode (refresh cookie + CSRF token) and in mobile mode (the client holds
// the refresh token, e.g. after signInWithIdToken), every module keeps working and a burst of
// concurrent calls costs exactly one refresh. A server-mode client never refreshes by itself: it
// sees AUTH_UNAUTHORIZED and the app refreshes. Refreshes and 401s are counted where the listening
// server receives the requests.
import { randomBytes } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { InsForgeClient } from '@insforge/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { epochSeconds } from '../../../src/core/clock.js';
import { type IdTokenIssuer, startIdTokenIssuer } from '../../harness/id-token-issuer.js';
import { TEST_KEY, WEBHOOK_SECRETS } from '../payments/payments-app.js';
import { installBrowser, startSdkApp, type SdkApp } from './sdk-app.js';

const GOOGLE_CLIENT_ID = 'session-refresh.apps.example';
const PASSWORD = 'sdk-password-1';

// Asks Plinth who the caller is with the caller's own token, as a function would.
const WHOAMI = `export default async function (req: Request) {
  const res = await fetch(Deno.env.get('SVC_BASE_URL') + '/api/auth/sessions/current', {
    headers: { authorization: req.headers.get('authorization') ?? '' },
  });
  if (!res.ok) return new Response(await res.text(), { status: res.status, headers: { 'content-type': 'application/json' } });
  const { user } = await res.json();
  return Response.json({ id: user.id });
}`;

let s: SdkApp;
let google: IdTokenIssuer;

/** Every request the listening server answered: method, path with query, status. */
const answered: { method: string; url: string; status: number }[] = [];

const isRefresh = (a: { method: string; url: string }) =>
  a.method === 'POST' && a.url.split('?')[0] === '/api/auth/refresh';

/** What the server answered while `run` ran. */
async function observe<T>(run: () => Promise<T>) {
  const from = answered.length;
  const result = await run();
  const during = answered.slice(from);
  return {
    result,
    refreshes: during.filter(isRefresh).map((a) => a.url),
    /** Paths (without query) that were answered 401. */
    refused: [...new Set(during.filter((a) => a.status === 401).map((a) => a.url.split('?')[0]))].sort(),
  };
}

const admin = () => ({ 'x-api-key': s.t.apiKey });

beforeAll(async () => {
  google = await startIdTokenIssuer({ issuer: 'https://accounts.google.com' });
  s = await startSdkApp({
    functions: true,
    processor: true,
    env: { STORAGE_DIR: await mkdtemp(path.join(tmpdir(), 'plinth-sdk-refresh-')) },
  });
  s.t.app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    res.on('finish', () => answered.push({ method: req.method ?? '', url: req.url ?? '', status: res.statusCode }));
  });

  await s.t.deps.sql.unsafe(`
    create table public.diary (
      id bigserial primary key,
      owner uuid not null default auth.uid(),
      entry text not null
    );
    create policy diary_owner on public.diary for all to authenticated
      using (owner = auth.uid()) with check (owner = auth.uid());
  `);
  const setup = [
    { method: 'POST', url: '/api/storage/buckets', payload: { bucketName: 'journals', isPublic: false } },
    { method: 'POST', url: '/api/auth/oauth/configs', payload: oauthConfig() },
    {
      method: 'PUT',
      url: '/api/payments/test/config',
      payload: { secretKey: TEST_KEY, webhookSecret: WEBHOOK_SECRETS.test },
    },
  ] as const;
  for (const request of setup) {
    const res = await s.t.request({ ...request, headers: admin() });
    expect(res.statusCode, res.body).toBeLessThan(300);
  }
  const deployed = await s.deploy!('whoami', WHOAMI);
  expect(deployed.statusCode, deployed.body).toBe(201);
}, 120_000);
afterAll(async () => {
  await s?.close();
  await google?.close();
});

function oauthConfig() {
  return { provider: 'google', clientId: GOOGLE_CLIENT_ID, jwksUrl: google.jwksUrl, issuer: google.issuer };
}

/** The user's billing customer at the processor, synced into Plinth (for the portal call). */
async function giveCustomer(userId: string) {
  s.processor!.put(TEST_KEY, {
    id: `cus_${randomBytes(4).toString('hex')}`,
    object: 'customer',
    email: null,
    name: null,
    metadata: { svc_subject_type: 'user', svc_subject_id: userId },
  });
  const synced = await s.t.request({ method: 'POST', url: '/api/payments/test/sync', headers: admin() });
  expect(synced.statusCode, synced.body).toBe(200);
}

const expireAccessTokens = () => s.t.clock.advance((s.t.config.accessTokenTtlSeconds + 1) * 1000);

/**
 * One call of every module at once, as a page does on load: the current user, a profile write,
 * a records insert and select, an upload, a function, the customer portal. Then a download of what
 * was uploaded. (A server-mode client keeps no session to answer getCurrentUser from.)
 */
async function useEveryModule(client: InsForgeClient, userId: string, round: string, keepsSession = true) {
  const file = `${userId}/${round}.txt`;
  const [current, profile, inserted, selected, uploaded, invoked, portal] = await Promise.all([
    keepsSession ? client.auth.getCurrentUser() : { error: null, data: { user: { id: userId } } },
    client.auth.setProfile({ round }),
    client.database.from('diary').insert({ entry: round }).select('entry'),
    client.database.from('diary').select('entry'),
    client.storage.from('journals').upload(file, new Blob([`entry ${round}`], { type: 'text/plain' })),
    client.functions.invoke('whoami'),
    client.payments.stripe.createCustomerPortalSession('test', {
      subject: { type: 'user', id: userId },
      returnUrl: 'https://app.example.com/account',
    }),
  ]);
  expect(current.error).toBeNull();
  expect(current.data.user).toMatchObject({ id: userId });
  expect(profile.error).toBeNull();
  expect(profile.data).toMatchObject({ id: userId, profile: { round } });
  expect(inserted.error).toBeNull();
  expect(inserted.data).toEqual([{ entry: round }]);
  expect(selected.error).toBeNull();
  expect(selected.data).toEqual(expect.any(Array));
  expect(uploaded.error).toBeNull();
  expect(uploaded.data).toMatchObject({ key: file });
  expect(invoked.error).toBeNull();
  expect(invoked.data).toEqual({ id: userId });
  expect(portal.error).toBeNull();
  expect(portal.data!.customerPortalSession).toMatchObject({ subjectType: 'user', subjectId: userId });

  const downloaded = await client.storage.from('journals').download(file);
  expect(downloaded.error).toBeNull();
  expect(await downloaded.data!.text()).toBe(`entry ${round}`);
}

/** Routes every module's burst reaches with the expired token; each must answer 401 first. */
const REFUSED_IN_A_BURST = [
  '/api/auth/profiles/current',
  '/api/database/records/diary',
  '/api/payments/stripe/test/customer-portal-sessions',
  '/api/storage/buckets/journals/upload-strategy',
  '/functions/whoami',
];

/** The expired token's 401 as a module call sees it. */
const EXPIRED = { statusCode: 401, error: 'AUTH_UNAUTHORIZED', message: 'The access token has expired.' };

describe('browser mode (refresh cookie + CSRF token in document.cookie, the default createClient)', () => {
  let browser: ReturnType<typeof installBrowser>;
  beforeAll(() => {
    browser = installBrowser();
  });
  afterAll(() => browser.uninstall());

  it('after the access token expires every module keeps working; a burst costs exactly one refresh', async () => {
    const client = s.client({ fetch: browser.fetch });
    const { data, error } = await client.auth.signUp({
      email: `web-${randomBytes(4).toString('hex')}@example.com`,
      password: PASSWORD,
    });
    expect(error).toBeNull();
    const userId = data!.user!.id;
    await giveCustomer(userId);

    const fresh = await observe(() => useEveryModule(client, userId, 'fresh'));
    expect(fresh.refreshes).toEqual([]);
    expect(fresh.refused).toEqual([]);

    for (const round of ['expired once', 'expired twice']) {
      const csrfBefore = browser.pageCookies.get('insforge_csrf_token');
      expireAccessTokens();
      const burst = await observe(() => useEveryModule(client, userId, round));
      // The cookie flow: no body, no client_type; the CSRF token rotated with the session.
      expect(burst.refreshes).toEqual(['/api/auth/refresh']);
      expect(burst.refused).toEqual(REFUSED_IN_A_BURST);
      expect(browser.pageCookies.get('insforge_csrf_token')).not.toBe(csrfBefore);
    }
  });

  it('the 401 the client refreshes on carries AUTH_UNAUTHORIZED', async () => {
    const client = s.client({ fetch: browser.fetch });
    const { data } = await client.auth.signUp({
      email: `web-${randomBytes(4).toString('hex')}@example.com`,
      password: PASSWORD,
    });
    expireAccessTokens();
    const res = await fetch(`${s.baseUrl}/api/auth/profiles/current`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${data!.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ profile: {} }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject(EXPIRED);
  });
});

describe('mobile mode (no document; the client holds the refresh token from signInWithIdToken)', () => {
  async function nativeSignIn() {
    const client = s.client();
    const tag = randomBytes(4).toString('hex');
    const now = epochSeconds(s.t.clock.now());
    const token = await google.sign({
      sub: `native-${tag}`,
      aud: GOOGLE_CLIENT_ID,
      email: `native-${tag}@example.com`,
      email_verified: true,
      iat: now,
      exp: now + 600,
    });
    const { data, error } = await client.auth.signInWithIdToken({ provider: 'google', token });
    expect(error).toBeNull();
    expect(data).toMatchObject({ accessToken: expect.any(String), refreshToken: expect.any(String) });
    return { client, userId: (data as { user: { id: string } }).user.id };
  }

  it('after the access token expires every module keeps working; a burst costs exactly one refresh', async () => {
    const { client, userId } = await nativeSignIn();
    await giveCustomer(userId);

    const fresh = await observe(() => useEveryModule(client, userId, 'fresh'));
    expect(fresh.refreshes).toEqual([]);

    for (const round of ['expired once', 'expired twice']) {
      expireAccessTokens();
      const burst = await observe(() => useEveryModule(client, userId, round));
      // The body flow with the rotated refresh token each time (a reused one would end the session).
      expect(burst.refreshes).toEqual(['/api/auth/refresh?client_type=mobile']);
      expect(burst.refused).toEqual(REFUSED_IN_A_BURST);
    }
  });
});

describe('server mode (isServerMode: true): the client never refreshes by itself', () => {
  it('every module reports AUTH_UNAUTHORIZED; one refreshSession by the app and every module works again', async () => {
    const client = s.client({ isServerMode: true });
    const { data } = await client.auth.signUp({
      email: `srv-${randomBytes(4).toString('hex')}@example.com`,
      password: PASSWORD,
    });
    const userId = data!.user!.id;
    await giveCustomer(userId);
    expireAccessTokens();

    const expired = await observe(() =>
      Promise.all([
        client.auth.setProfile({ expired: true }),
        client.database.from('diary').select('entry'),
        client.storage.from('journals').upload(`${userId}/x.txt`, new Blob(['x'])),
        client.functions.invoke('whoami'),
        client.payments.stripe.createCustomerPortalSession('test', {
          subject: { type: 'user', id: userId },
          returnUrl: 'https://app.example.com/account',
        }),
      ]),
    );
    const [profile, selected, uploaded, invoked, portal] = expired.result;
    expect(profile.error).toMatchObject(EXPIRED);
    // postgrest-js hands the error body over as it came.
    expect(selected.status).toBe(401);
    expect(selected.error).toMatchObject({ message: EXPIRED.message });
    expect(uploaded.error).toMatchObject(EXPIRED);
    expect(invoked.error).toMatchObject(EXPIRED);
    expect(portal.error).toMatchObject(EXPIRED);
    expect(expired.refreshes).toEqual([]);

    const refreshed = await observe(() => client.auth.refreshSession({ refreshToken: data!.refreshToken! }));
    expect(refreshed.result.error).toBeNull();
    expect(refreshed.refreshes).toEqual(['/api/auth/refresh?client_type=mobile']);
    const after = await observe(() => useEveryModule(client, userId, 'refreshed by the app', false));
    expect(after.refreshes).toEqual([]);
    expect(after.refused).toEqual([]);
  });
});
