// Functions come back with a restore: a function changed after the backup answers with its code
// of backup time again, and one created after the backup is gone, on this server's runtime (the
// restore tells every server which functions changed).
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startSdkApp, type SdkApp } from '../sdk/sdk-app.js';

let s: SdkApp;
const asAdmin = (method: string, url: string, payload?: unknown) =>
  s.t.request({ method: method as 'GET', url, headers: { 'x-api-key': s.t.apiKey }, payload: payload as object });

beforeAll(async () => {
  s = await startSdkApp({ functions: true });
  expect((await s.deploy!('greet', 'export default () => new Response("before")')).statusCode).toBe(201);
}, 120_000);
afterAll(() => s?.close());

it('restores the functions of backup time, invocable through the client', async () => {
  const created = await asAdmin('POST', '/api/database/backups');
  await vi.waitFor(
    async () => {
      const { json } = await asAdmin('GET', '/api/database/backups');
      expect(json.backups[0].status).toBe('completed');
    },
    { timeout: 20_000, interval: 20 },
  );

  const updated = await asAdmin('PUT', '/api/functions/greet', { code: 'export default () => new Response("after")' });
  expect(updated.statusCode, updated.body).toBe(200);
  expect((await s.deploy!('later', 'export default () => new Response("later")')).statusCode).toBe(201);
  expect((await s.client().functions.invoke('greet', { method: 'GET' })).data).toBe('after');

  expect((await asAdmin('POST', `/api/database/backups/${created.json.id}/restore`)).statusCode).toBe(200);

  await vi.waitFor(
    async () => {
      expect((await s.client().functions.invoke('greet', { method: 'GET' })).data).toBe('before');
      const later = await s.client().functions.invoke('later', { method: 'GET' });
      expect(later.error).not.toBeNull();
    },
    // The runtime starts a worker for the restored version; on a loaded machine that takes a while.
    { timeout: 60_000, interval: 50 },
  );
}, 120_000);
