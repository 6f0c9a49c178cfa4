// Sealed and private tables stay out of reach of the request roles: project_admin's raw SQL and
// the records API (any credential) cannot read system.secrets, auth.users' password hashes,
// sessions or the payment processor's keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  await t.signUp('victim@example.com');
});
afterAll(() => t.close());

const PRIVATE = ['system.secrets', 'auth.users', 'auth.sessions', 'payments.connections', 'payments.webhook_events'];

describe('private tables', () => {
  for (const table of PRIVATE) {
    it(`project_admin raw SQL cannot read ${table} (403, no rows)`, async () => {
      const res = await t.request({
        method: 'POST',
        url: '/api/database/advance/rawsql',
        headers: { 'x-api-key': t.apiKey },
        payload: { query: `select * from ${table}` },
      });
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json).toMatchObject({ error: 'FORBIDDEN', message: expect.stringMatching(/permission denied/) });
      expect(res.body).not.toMatch(/argon2|ciphertext/);
    });

    it(`the records API does not serve ${table}`, async () => {
      for (const headers of [{ 'x-api-key': t.apiKey }, { authorization: `Bearer ${t.anonKey}` }]) {
        const res = await t.request({ method: 'GET', url: `/api/database/records/${table}`, headers });
        expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
        expect(res.statusCode, res.body).toBeLessThan(500);
        expect(res.body).not.toMatch(/argon2|victim@example.com/);
      }
    });
  }
});
