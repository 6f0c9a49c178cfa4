// The OpenAPI document is complete for the modules brought into the one module shape: every
// storage, secrets, payments and webhook route documents what it answers on success.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../harness/test-app.js';

const PREFIXES = ['/api/storage', '/api/secrets', '/api/payments', '/api/webhooks', '/api/schedules', '/api/realtime'];
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> } | undefined>;
}

/** True when one 2xx answer of the operation has a body schema, or is documented as bodiless (204, 304). */
const documentsSuccess = (op: Operation): boolean =>
  Object.entries(op.responses ?? {}).some(([status, response]) => {
    if (!/^2\d\d$/.test(status) || !response) return false;
    if (status === '204') return true;
    return Object.values(response.content ?? {}).some((media) => media.schema !== undefined);
  });

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('GET /api/openapi.json', () => {
  it('lists a success response schema for every storage, secrets, payments and webhook route', async () => {
    const doc = await t.request({ method: 'GET', url: '/api/openapi.json' });
    expect(doc.statusCode).toBe(200);
    const paths = doc.json.paths as Record<string, Record<string, Operation>>;
    const routes = Object.entries(paths)
      .filter(([path]) => PREFIXES.some((prefix) => path.startsWith(prefix)))
      .flatMap(([path, item]) =>
        METHODS.filter((m) => item[m]).map((m) => ({ route: `${m.toUpperCase()} ${path}`, op: item[m]! })),
      );
    // Every prefix is there at all (a route that vanished from the document would pass below).
    for (const prefix of PREFIXES)
      expect(
        routes.some((r) => r.route.includes(` ${prefix}`)),
        prefix,
      ).toBe(true);
    const undocumented = routes.filter((r) => !documentsSuccess(r.op)).map((r) => r.route);
    expect(undocumented).toEqual([]);
  });
});
