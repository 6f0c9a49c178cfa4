// CORS for supabase-js in a browser, as real preflights over loopback: every Supabase prefix
// answers a preflight that asks for the headers supabase-js sends, and every answer lets the page
// read the headers supabase-js reads (Content-Range for counts, X-Total-Count and Link for the admin
// user list, X-Supabase-Api-Version for auth error codes). A page never gets the visitor's cookies
// sent along (no Allow-Credentials for an origin not named), and /functions/v1 preflights stay the
// function's own (functions-invoke.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';
import { applyFixture } from './rest-harness.js';

let t: TestApp;
let base: string;
const ORIGIN = 'http://localhost:5173';

beforeAll(async () => {
  t = await startTestApp();
  const port = await freePort();
  await t.app.listen({ port, host: '127.0.0.1' });
  base = `http://127.0.0.1:${port}`;
  await applyFixture(t, '20240101000100_todos.sql');
});
afterAll(() => t.close());

/** Every header supabase-js 2.119 may send on a cross-origin call (lower case, as browsers list them). */
const SUPABASE_JS_HEADERS = [
  'accept-profile',
  'apikey',
  'authorization',
  'content-profile',
  'content-type',
  'prefer',
  'range',
  'x-client-info',
  'x-supabase-api-version',
  'x-upsert',
];

const listOf = (value: string | null) =>
  (value ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);

async function preflight(path: string, method: string) {
  return fetch(`${base}${path}`, {
    method: 'OPTIONS',
    headers: {
      origin: ORIGIN,
      'access-control-request-method': method,
      'access-control-request-headers': SUPABASE_JS_HEADERS.join(','),
    },
  });
}

describe('preflights on the Supabase prefixes', () => {
  it.each([
    ['/auth/v1/token?grant_type=password', 'POST'],
    ['/auth/v1/user', 'PUT'],
    ['/auth/v1/admin/users/00000000-0000-0000-0000-000000000000', 'DELETE'],
    ['/rest/v1/todos?id=eq.1', 'PATCH'],
    ['/rest/v1/rpc/add', 'POST'],
    ['/storage/v1/object/avatars/a/b.png', 'PUT'],
    ['/storage/v1/object/list/avatars', 'POST'],
    ['/realtime/v1/api/broadcast', 'POST'],
  ])(
    '%s (%s): 204, the origin, the method and every supabase-js header allowed, no credentials',
    async (path, method) => {
      const res = await preflight(path, method);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(listOf(res.headers.get('access-control-allow-methods'))).toContain(method.toLowerCase());
      expect(listOf(res.headers.get('access-control-allow-headers'))).toEqual(
        expect.arrayContaining(SUPABASE_JS_HEADERS),
      );
      expect(Number(res.headers.get('access-control-max-age'))).toBeGreaterThan(0);
      expect(listOf(res.headers.get('vary'))).toEqual(
        expect.arrayContaining(['origin', 'access-control-request-headers']),
      );
    },
  );
});

describe('what a page may read', () => {
  const headers = { origin: ORIGIN, apikey: '', authorization: '' };
  beforeAll(() => {
    headers.apikey = t.apiKey;
    headers.authorization = `Bearer ${t.apiKey}`;
  });

  it('a /rest/v1 count: Content-Range is exposed', async () => {
    const res = await fetch(`${base}/rest/v1/todos?select=*`, { headers: { ...headers, prefer: 'count=exact' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-range')).toBe('*/0');
    expect(listOf(res.headers.get('access-control-expose-headers'))).toEqual(
      expect.arrayContaining(['content-range', 'range-unit', 'content-location', 'location']),
    );
  });

  it('the /auth/v1 admin list and an auth error: X-Total-Count, Link and X-Supabase-Api-Version are exposed', async () => {
    const list = await fetch(`${base}/auth/v1/admin/users?page=1&per_page=1`, { headers });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total-count')).toEqual(expect.any(String));
    const wrong = await fetch(`${base}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      headers: { origin: ORIGIN, apikey: t.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'nobody@example.com', password: 'wrong-password' }),
    });
    expect(wrong.status).toBe(400);
    for (const res of [list, wrong]) {
      expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
      expect(listOf(res.headers.get('access-control-expose-headers'))).toEqual(
        expect.arrayContaining(['x-total-count', 'link', 'x-supabase-api-version']),
      );
    }
  });

  it('an origin named in CORS_ORIGINS is the only kind that gets credentials (the default * gives none)', async () => {
    const res = await fetch(`${base}/rest/v1/todos?select=*`, { headers });
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });
});
