// The admin's view of a user's sessions: the live ones are listed (ended and other users' are
// not), ending one stops its refresh token and access token at once while the user's other
// session goes on, and ending all stops every one; unknown users and sessions are 404s.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentSession, passwordSignIn, refreshMobile } from '../../harness/sessions.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const admin = () => bearer(t.apiKey);
const listSessions = (userId: string, headers = admin()) =>
  t.request({ method: 'GET', url: `/api/auth/users/${userId}/sessions`, headers });
const revokeOne = (userId: string, sessionId: string) =>
  t.request({ method: 'DELETE', url: `/api/auth/users/${userId}/sessions/${sessionId}`, headers: admin() });
const revokeAll = (userId: string) =>
  t.request({ method: 'DELETE', url: `/api/auth/users/${userId}/sessions`, headers: admin() });

/** A user with two sessions (sign-up, then a second sign-in), newest second. */
async function userWithTwoSessions() {
  const first = await t.signUp();
  t.clock.advance(1_000);
  const second = await passwordSignIn(t, first, 'mobile');
  expect(second.statusCode, second.body).toBe(200);
  return {
    userId: first.user.id as string,
    first: { accessToken: first.accessToken, refreshToken: first.refreshToken },
    second: { accessToken: second.json.accessToken as string, refreshToken: second.json.refreshToken as string },
  };
}

const sessionIdOf = (accessToken: string) =>
  JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString('utf8')).sid as string;

describe('GET /api/auth/users/:userId/sessions', () => {
  it("lists the user's live sessions, newest first, and no one else's", async () => {
    const u = await userWithTwoSessions();
    await t.signUp();
    const res = await listSessions(u.userId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json.data.map((s: { id: string }) => s.id)).toEqual([
      sessionIdOf(u.second.accessToken),
      sessionIdOf(u.first.accessToken),
    ]);
    expect(res.json.data[0]).toEqual({
      id: expect.any(String),
      createdAt: expect.any(String),
      refreshedAt: null,
      expiresAt: expect.any(String),
    });
    expect(Date.parse(res.json.data[0].expiresAt)).toBeGreaterThan(Date.parse(res.json.data[0].createdAt));
  });

  it('shows when a session was last refreshed', async () => {
    const user = await t.signUp();
    t.clock.advance(60_000);
    expect((await refreshMobile(t, user.refreshToken)).statusCode).toBe(200);
    const [session] = (await listSessions(user.user.id)).json.data;
    expect(Date.parse(session.refreshedAt)).toBe(t.clock.now().getTime());
  });

  it.each([
    ['an unknown user', () => randomUUID(), 404, 'AUTH_USER_NOT_FOUND'],
    ['a malformed id', () => 'not-a-uuid', 400, 'VALIDATION_ERROR'],
  ])('answers %s with %i', async (_name, id, status, error) => {
    const res = await listSessions(id());
    expect(res.statusCode).toBe(status);
    expect(res.json.error).toBe(error);
  });
});

describe('DELETE /api/auth/users/:userId/sessions/:sessionId', () => {
  it('ends that session only: its refresh and access tokens stop, the other session goes on', async () => {
    const u = await userWithTwoSessions();
    const res = await revokeOne(u.userId, sessionIdOf(u.first.accessToken));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toEqual({ success: true, message: '1 session revoked', revokedCount: 1 });

    const refused = await refreshMobile(t, u.first.refreshToken);
    expect(refused.statusCode).toBe(401);
    expect(refused.json.error).toBe('UNAUTHORIZED');
    expect((await currentSession(t, u.first.accessToken)).statusCode).toBe(401);

    expect((await currentSession(t, u.second.accessToken)).statusCode).toBe(200);
    expect((await refreshMobile(t, u.second.refreshToken)).statusCode).toBe(200);
    const left = (await listSessions(u.userId)).json.data.map((s: { id: string }) => s.id);
    expect(left).toEqual([sessionIdOf(u.second.accessToken)]);
  });

  it("is a 404 for a session that is already ended or is another user's", async () => {
    const u = await userWithTwoSessions();
    const other = await t.signUp();
    const sessionId = sessionIdOf(u.first.accessToken);
    expect((await revokeOne(u.userId, sessionId)).statusCode).toBe(200);

    const again = await revokeOne(u.userId, sessionId);
    expect(again.statusCode).toBe(404);
    expect(again.json).toMatchObject({ error: 'NOT_FOUND', nextActions: expect.stringContaining('/sessions') });

    const foreign = await revokeOne(other.user.id, sessionIdOf(u.second.accessToken));
    expect(foreign.statusCode).toBe(404);
    expect((await refreshMobile(t, u.second.refreshToken)).statusCode).toBe(200);
  });

  it('is a 404 for an unknown user', async () => {
    const res = await revokeOne(randomUUID(), randomUUID());
    expect(res.statusCode).toBe(404);
    expect(res.json.error).toBe('AUTH_USER_NOT_FOUND');
  });
});

describe('DELETE /api/auth/users/:userId/sessions', () => {
  it('ends every session of the user and no one else’s', async () => {
    const u = await userWithTwoSessions();
    const bystander = await t.signUp();
    const res = await revokeAll(u.userId);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json).toEqual({ success: true, message: '2 sessions revoked', revokedCount: 2 });
    for (const session of [u.first, u.second]) {
      expect((await refreshMobile(t, session.refreshToken)).statusCode).toBe(401);
      expect((await currentSession(t, session.accessToken)).statusCode).toBe(401);
    }
    expect((await listSessions(u.userId)).json.data).toEqual([]);
    expect((await currentSession(t, bystander.accessToken)).statusCode).toBe(200);

    const none = await revokeAll(u.userId);
    expect(none.json).toEqual({ success: true, message: '0 sessions revoked', revokedCount: 0 });
  });
});
