// A Node app's user session (issue 39, M2), against a listening Plinth with an injected clock.
// The default client in Node has no cookie jar: its cookie refresh after the access token expires
// is answered 400 with nextActions, so every later call still fails visibly instead of running as
// anon (`200 []`). The documented server-side pattern (docs/examples/node-user-session.ts: server
// mode, the app keeps the refresh token, refreshSession) keeps the session across expiries.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeUserSession } from '../../../docs/examples/node-user-session.js';
import { startSdkApp, type SdkApp } from './sdk-app.js';

const PASSWORD = 'node-session-password-1';
let s: SdkApp;

/** Refresh requests the server answered, with their status. */
const refreshes: { url: string; status: number }[] = [];

beforeAll(async () => {
  s = await startSdkApp();
  s.t.app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '';
    if (url.startsWith('/api/auth/refresh')) res.on('finish', () => refreshes.push({ url, status: res.statusCode }));
  });
  await s.t.deps.sql.unsafe(`
    create table public.todos (
      id bigserial primary key,
      owner uuid not null default auth.uid(),
      title text not null
    );
    create policy todos_owner on public.todos for all to authenticated
      using (owner = auth.uid()) with check (owner = auth.uid());
  `);
}, 120_000);
afterAll(async () => {
  await s?.close();
});

const expireAccessTokens = () => s.t.clock.advance((s.t.config.accessTokenTtlSeconds + 1) * 1000);
const newUser = async () => {
  const email = `node-${randomBytes(4).toString('hex')}@example.com`;
  await s.t.signUp(email, PASSWORD);
  return email;
};

describe('the default client in Node (no cookie jar)', () => {
  it('after the access token expires, every call reports the refresh failure; none runs as anon', async () => {
    const client = s.client();
    const { error } = await client.auth.signInWithPassword({ email: await newUser(), password: PASSWORD });
    expect(error).toBeNull();
    const inserted = await client.database.from('todos').insert({ title: 'mine' }).select('title');
    expect(inserted.error).toBeNull();
    expect(inserted.data).toEqual([{ title: 'mine' }]);

    expireAccessTokens();
    const from = refreshes.length;
    for (let call = 0; call < 2; call++) {
      const profile = await client.auth.setProfile({ call });
      expect(profile.error).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR' });
      expect((profile.error as { nextActions?: string }).nextActions).toContain('isServerMode: true');
      const listed = await client.database.from('todos').select('title');
      expect(listed.data).toBeNull();
      expect(listed.error?.message).toContain('No refresh token');
    }
    expect(refreshes.slice(from)).toEqual(Array(4).fill({ url: '/api/auth/refresh', status: 400 }));
  });

  it.each([
    ['no cookie, Origin or CSRF header (a client without a cookie jar)', {}, 400, 'VALIDATION_ERROR'],
    [
      'an Origin but no cookie (a browser whose cookie is gone)',
      { origin: 'https://app.example.com' },
      401,
      'UNAUTHORIZED',
    ],
    ['a CSRF header but no cookie (the client kept its CSRF token)', { 'x-csrf-token': 'abc' }, 401, 'UNAUTHORIZED'],
  ])('a web refresh with %s → %s', async (_label, headers, status, code) => {
    const res = await fetch(`${s.baseUrl}/api/auth/refresh`, { method: 'POST', headers });
    const body = (await res.json()) as Record<string, unknown>;
    expect(res.status).toBe(status);
    expect(body).toMatchObject({ error: code, statusCode: status, nextActions: expect.any(String) });
  });
});

describe('the server-side pattern (docs/examples/node-user-session.ts)', () => {
  it('keeps the session across expiries: one refresh per expiry, rotated tokens handed to the app', async () => {
    const kept: string[] = [];
    const session = await NodeUserSession.signIn(
      { baseUrl: s.baseUrl, anonKey: s.t.anonKey, onRefreshToken: (token) => void kept.push(token) },
      await newUser(),
      PASSWORD,
    );
    const added = await session.run((c) => c.database.from('todos').insert({ title: 'first' }).select('title'));
    expect(added.error).toBeNull();

    for (const round of ['second', 'third']) {
      expireAccessTokens();
      const from = refreshes.length;
      // Three calls at once, as a request handler may make: one refresh serves them all.
      const [inserted, listed, profile] = await Promise.all([
        session.run((c) => c.database.from('todos').insert({ title: round }).select('title')),
        session.run((c) => c.database.from('todos').select('title').order('id')),
        session.run((c) => c.auth.setProfile({ round })),
      ]);
      expect(inserted.error).toBeNull();
      expect(inserted.data).toEqual([{ title: round }]);
      expect(listed.error).toBeNull();
      expect(listed.data!.map((r) => r.title)).toContain('first');
      expect(profile.error).toBeNull();
      expect(refreshes.slice(from)).toEqual([{ url: '/api/auth/refresh?client_type=mobile', status: 200 }]);
    }
    expect(kept).toHaveLength(3);
    expect(new Set(kept).size).toBe(3);
  });
});
