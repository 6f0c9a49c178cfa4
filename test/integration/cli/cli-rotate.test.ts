// `plinth secrets rotate`: the real binary rotates the signing key and the API key on a listening
// Plinth, with the grace period asked for; the old key then opens nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';
import { projectDir, runCli } from './cli-runner.js';

let t: TestApp;
let url: string;
beforeAll(async () => {
  t = await startTestApp();
  url = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

const plinth = async (apiKey: string, ...args: string[]) =>
  runCli(await projectDir(), args, { PLINTH_URL: url, PLINTH_API_KEY: apiKey });
const jwksKids = async () =>
  ((await t.request({ method: 'GET', url: '/.well-known/jwks.json' })).json.keys as { kid: string }[]).map(
    (k) => k.kid,
  );

describe('plinth secrets rotate', () => {
  it('rotates the signing key (old key gone at once with --grace-hours 0), then the API key', async () => {
    const user = await t.signUp();
    const signing = await plinth(t.apiKey, '--json', 'secrets', 'rotate', 'signing-key', '--grace-hours', '0');
    expect(signing.code, signing.stderr).toBe(0);
    const answer = JSON.parse(signing.stdout);
    expect(answer).toMatchObject({ success: true, keyId: expect.stringMatching(/^kid_/) });
    expect(await jwksKids()).toEqual([answer.keyId]);
    const current = await t.request({
      method: 'GET',
      url: '/api/auth/sessions/current',
      headers: bearer(user.accessToken),
    });
    expect(current.statusCode).toBe(401);

    const api = await plinth(t.apiKey, 'secrets', 'rotate', 'api-key', '--grace-hours', '0');
    expect(api.code, api.stderr).toBe(0);
    const newKey = /apiKey: (ik_[0-9a-f]{64})/.exec(api.stdout)?.[1];
    expect(newKey).toBeDefined();
    expect(api.stdout).toMatch(/^API key rotated; the old key works until /);
    expect(
      (await t.request({ method: 'GET', url: '/api/secrets', headers: { 'x-api-key': t.apiKey } })).statusCode,
    ).toBe(401);
    const anon = await plinth(newKey!, 'secrets', 'rotate', 'anon-key');
    expect(anon.code, anon.stderr).toBe(0);
    expect(anon.stdout).toMatch(/anonKey: anon_[0-9a-f]{64}/);
  });

  it('refuses an unknown key or a bad grace period before calling the server', async () => {
    const unknown = await plinth(t.apiKey, 'secrets', 'rotate', 'master-key');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/api-key, anon-key, signing-key/);
    const bad = await plinth(t.apiKey, 'secrets', 'rotate', 'signing-key', '--grace-hours', 'soon');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/whole number of hours/);
  });
});
