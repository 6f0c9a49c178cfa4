// End users for tests that need more than one caller (row-level security, billing subjects,
// another user's objects): each signed up through the API, known by its id and access token.
import type { TestApp } from './test-app.js';

export interface SignedInUser {
  id: string;
  token: string;
}

/** A new user, signed up (mobile client) and signed in. */
export async function signedInUser(t: Pick<TestApp, 'signUp'>): Promise<SignedInUser> {
  const session = await t.signUp();
  return { id: session.user.id, token: session.accessToken };
}

/** Two new users: alice, then bob. */
export async function twoUsers(t: Pick<TestApp, 'signUp'>): Promise<{ alice: SignedInUser; bob: SignedInUser }> {
  const alice = await signedInUser(t);
  const bob = await signedInUser(t);
  return { alice, bob };
}

/** POST /api/auth/users by the admin: an email + password account, verified at once (autoConfirm). */
export function createConfirmedUser(t: Pick<TestApp, 'request' | 'apiKey'>, email: string, password = 'password-123') {
  return t.request({
    method: 'POST',
    url: '/api/auth/users?client_type=mobile',
    headers: { 'x-api-key': t.apiKey },
    payload: { email, password, autoConfirm: true },
  });
}
