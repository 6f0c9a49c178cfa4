// The official JavaScript client's functions.invoke against a listening Plinth with its real Deno
// runtime: JSON in and out (POST by default, other methods on request), text answers, the
// caller's token reaching the function (which asks Plinth who the caller is), and errors.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSdkApp, type SdkApp } from './sdk-app.js';

let s: SdkApp;

const ECHO = `export default async function (req: Request) {
  const text = req.method === 'GET' ? '' : await req.text();
  return Response.json({
    method: req.method,
    contentType: req.headers.get('content-type'),
    custom: req.headers.get('x-custom'),
    body: text ? JSON.parse(text) : null,
  });
}`;

// Reads the caller's access token and asks Plinth for the current user, as a function would.
const WHOAMI = `export default async function (req: Request) {
  const res = await fetch(Deno.env.get('SVC_BASE_URL') + '/api/auth/sessions/current', {
    headers: { authorization: req.headers.get('authorization') ?? '' },
  });
  if (!res.ok) return Response.json({ error: 'UNAUTHORIZED', message: 'Sign in first.', statusCode: 401 }, { status: 401 });
  const { user } = await res.json();
  return Response.json({ id: user.id, email: user.email });
}`;

beforeAll(async () => {
  s = await startSdkApp({ functions: true });
  const functions: [string, string][] = [
    ['echo', ECHO],
    ['whoami', WHOAMI],
    ['hello', 'export default () => new Response("hello, world")'],
  ];
  for (const [slug, code] of functions) {
    const res = await s.deploy!(slug, code);
    expect(res.statusCode, res.body).toBe(201);
  }
}, 120_000);
afterAll(() => s.close());

describe('functions.invoke', () => {
  it('POSTs a JSON body by default and parses the JSON answer', async () => {
    const { data, error } = await s
      .client()
      .functions.invoke('echo', { body: { n: 1, list: ['a'] }, headers: { 'x-custom': 'yes' } });
    expect(error).toBeNull();
    expect(data).toEqual({
      method: 'POST',
      contentType: 'application/json;charset=UTF-8',
      custom: 'yes',
      body: { n: 1, list: ['a'] },
    });
  });

  it('other methods on request: GET without a body, PUT and DELETE with one', async () => {
    const client = s.client();
    expect((await client.functions.invoke('echo', { method: 'GET' })).data).toMatchObject({
      method: 'GET',
      body: null,
    });
    expect((await client.functions.invoke('echo', { method: 'PUT', body: { v: 2 } })).data).toMatchObject({
      method: 'PUT',
      body: { v: 2 },
    });
    expect((await client.functions.invoke('echo', { method: 'DELETE', body: { v: 3 } })).data).toMatchObject({
      method: 'DELETE',
      body: { v: 3 },
    });
  });

  it('a text answer arrives as a string', async () => {
    const { data, error } = await s.client().functions.invoke('hello');
    expect(error).toBeNull();
    expect(data).toBe('hello, world');
  });

  it("the signed-in user's token reaches the function; the anon key does not make a user", async () => {
    const client = s.client({ isServerMode: true });
    const address = `fn-${randomBytes(4).toString('hex')}@example.com`;
    const { data: session } = await client.auth.signUp({ email: address, password: 'sdk-password-1' });
    const mine = await client.functions.invoke('whoami');
    expect(mine.error).toBeNull();
    expect(mine.data).toEqual({ id: session!.user!.id, email: address });

    const anonymous = await s.client().functions.invoke('whoami');
    expect(anonymous.data).toBeNull();
    expect(anonymous.error).toMatchObject({ statusCode: 401, error: 'UNAUTHORIZED', message: 'Sign in first.' });
  });

  it('an unknown function is a 404 error whose message says which function, and what to do', async () => {
    const { data, error } = await s.client().functions.invoke('no-such-function');
    expect(data).toBeNull();
    expect(error).toMatchObject({ statusCode: 404, error: 'FUNCTION_NOT_FOUND' });
    // What an app shows its user: the client's Error message (empty when the answer had none).
    expect(error!.message).toBe('Function "no-such-function" not found or not active.');
    expect(error!.nextActions).toContain('POST /api/functions');
  });
});
