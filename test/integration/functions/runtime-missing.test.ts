// A runtime that cannot start at all (no Deno executable): the API keeps working, functions are
// stored with a pending deployment, invocations answer 502, and the supervisor keeps retrying.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
const logged: string[] = [];
beforeAll(async () => {
  t = await startTestApp({ env: { FUNCTIONS_DENO_PATH: '/nonexistent/deno', FUNCTIONS_RUNTIME_PORT: '0' } });
  t.deps.runtime.setLogger((_level, message) => logged.push(message));
  void t.deps.runtime.start();
});
afterAll(() => t?.close());

it('keeps the API up, stores functions as pending, answers 502 and retries', async () => {
  await vi.waitFor(() => expect(logged.filter((m) => m.includes('restarting in')).length).toBeGreaterThanOrEqual(2), {
    timeout: 10_000,
    interval: 20,
  });
  const created = await t.request({
    method: 'POST',
    url: '/api/functions',
    headers: { 'x-api-key': t.apiKey },
    payload: { name: 'later', code: 'export default () => new Response("later");' },
  });
  expect(created.statusCode).toBe(201);
  expect(created.json.deployment).toMatchObject({ id: 'later@1', status: 'pending' });
  const list = await t.request({ method: 'GET', url: '/api/functions', headers: { 'x-api-key': t.apiKey } });
  expect(list.json.runtime).toEqual({ status: 'unavailable' });
  const res = await t.request({ method: 'POST', url: '/functions/later', headers: bearer(t.anonKey), payload: 'x' });
  expect(res.statusCode).toBe(502);
  expect(res.json).toMatchObject({ error: 'UPSTREAM_FAILURE', statusCode: 502 });
});
