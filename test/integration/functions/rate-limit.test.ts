// Functions management writes are rate limited as the reference platform: 15 creates, updates and
// deletes per 5 minutes per IP, then 429 with Retry-After (the injected clock moves the window).
// The runtime is not started: writes are stored with a pending deployment, which is enough here.
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
const update = (slug: string) => t.request({ method: 'PUT', url: `/api/functions/${slug}`, headers: admin(), payload: { description: 'x' } });
const remove = (slug: string) => t.request({ method: 'DELETE', url: `/api/functions/${slug}`, headers: admin() });

it('allows 15 writes in 5 minutes, then 429 with Retry-After until the window ends', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) {
    statuses.push((await create(`fn-${i}`)).statusCode, (await update(`fn-${i}`)).statusCode, (await remove(`fn-${i}`)).statusCode);
  }
  expect(statuses).toEqual(Array.from({ length: 5 }, () => [201, 200, 200]).flat());

  // Reads are not limited; refused callers are not counted.
  expect((await t.request({ method: 'GET', url: '/api/functions', headers: admin() })).statusCode).toBe(200);
  expect((await create('anon-try', bearer(t.anonKey))).statusCode).toBe(403);

  const refused = await create('sixteenth');
  expect(refused.statusCode).toBe(429);
  expect(refused.headers['retry-after']).toBe('300');
  expect(refused.json).toMatchObject({ error: 'TOO_MANY_REQUESTS', statusCode: 429 });
  expect((await update('fn-0')).statusCode).toBe(429);

  t.clock.advance(4 * 60 * 1000);
  const later = await remove('fn-0');
  expect(later.statusCode).toBe(429);
  expect(later.headers['retry-after']).toBe('60');

  t.clock.advance(60 * 1000);
  expect((await create('next-window')).statusCode).toBe(201);
  expect((await t.request({ method: 'GET', url: '/api/functions/next-window', headers: admin() })).statusCode).toBe(200);
});
