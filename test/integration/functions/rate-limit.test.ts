// Functions management writes are admin-only and never limited per IP (api-contract Part A item
// 16: the reference platform's 15 per 5 minutes is deliberately not copied). The runtime is not
// started: writes are stored with a pending deployment, which is enough here.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { FUNCTIONS_RUNTIME_PORT: '0' } });
});
afterAll(() => t?.close());

const code = 'export default () => new Response("ok");';
const admin = () => ({ 'x-api-key': t.apiKey });
const create = (slug: string, headers: Record<string, string> = admin()) =>
  t.request({ method: 'POST', url: '/api/functions', headers, payload: { name: slug, slug, code } });
const update = (slug: string) =>
  t.request({ method: 'PUT', url: `/api/functions/${slug}`, headers: admin(), payload: { description: 'x' } });
const remove = (slug: string) => t.request({ method: 'DELETE', url: `/api/functions/${slug}`, headers: admin() });

it('an admin makes 21 writes from one IP within 5 minutes, all accepted (the old limit was 15)', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 7; i++) {
    statuses.push(
      (await create(`fn-${i}`)).statusCode,
      (await update(`fn-${i}`)).statusCode,
      (await remove(`fn-${i}`)).statusCode,
    );
  }
  expect(statuses).toEqual(Array.from({ length: 7 }, () => [201, 200, 200]).flat());
  // An admin session is an admin too.
  const session = bearer(await t.adminToken());
  expect((await create('by-session', session)).statusCode).toBe(201);
  // Non-admins are still refused.
  expect((await create('anon-try', bearer(t.anonKey))).statusCode).toBe(403);
});
