// The server's foundation as a client and an operator see it: startup on an empty database by
// two servers at once, health, request ids, the 500 shape, OpenAPI, CORS and graceful shutdown.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createDeps } from '../../src/deps.js';
import { loadPlatformKeys } from '../../src/modules/secrets/index.js';
import { createDatabase, startTestApp, testConfig, TEST_ADMIN, type TestApp } from '../harness/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('startup', () => {
  it('two servers starting at once on an empty database migrate it once and agree on the keys', async () => {
    const url = await createDatabase('empty');
    const config = testConfig(url);
    const [a, b] = await Promise.all([createDeps(config), createDeps(config)]);
    try {
      const [keysA, keysB] = await Promise.all([loadPlatformKeys(a), loadPlatformKeys(b)]);
      expect(keysA.apiKey).toMatch(/^ik_[0-9a-f]{64}$/);
      expect(keysB.apiKey).toBe(keysA.apiKey);
      expect(keysB.anonKey).toBe(keysA.anonKey);
      expect(keysB.signingKey.kid).toBe(keysA.signingKey.kid);
      // One of the two created them (the first start), the other found them.
      expect([keysA.created.length > 0, keysB.created.length > 0].filter(Boolean)).toHaveLength(1);
      const [row] = await a.sql<{ count: number }[]>`select count(*)::int as count from system.migrations`;
      expect(row?.count).toBe(a.migrations.length);
      const reserved = await a.sql<{ key: string; value_ciphertext: string }[]>`
        select key, value_ciphertext from system.secrets where is_reserved order by key`;
      expect(reserved.map((r) => r.key)).toEqual([
        'ADMIN_PASSWORD',
        'ANON_KEY',
        'API_KEY',
        'JWT_KEY_ID',
        'JWT_PRIVATE_KEY',
      ]);
      // Stored encrypted, never in the clear.
      expect(reserved.find((r) => r.key === 'API_KEY')!.value_ciphertext).not.toContain(keysA.apiKey);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('a restart keeps the keys of the first start', async () => {
    const again = await createDeps(t.config);
    try {
      const keys = await loadPlatformKeys(again);
      expect(keys.apiKey).toBe(t.apiKey);
      expect(keys.created).toEqual([]);
    } finally {
      await again.close();
    }
  });
});

describe('operations endpoints', () => {
  it('reports liveness and readiness', async () => {
    const live = await t.request({ method: 'GET', url: '/api/health' });
    expect(live.statusCode).toBe(200);
    expect(live.json).toMatchObject({ status: 'ok', service: 'Plinth', version: expect.any(String) });
    const ready = await t.request({ method: 'GET', url: '/api/health/ready' });
    expect(ready.statusCode).toBe(200);
    // The function runtime is reported, not required: tests leave it stopped.
    expect(ready.json).toEqual({
      status: 'ready',
      database: 'ok',
      pendingMigrations: [],
      functionsRuntime: { status: 'stopped', restarts: 0, nextAttemptAt: null },
    });
  });

  it('echoes a sane X-Request-Id and makes one otherwise', async () => {
    const given = await t.request({ method: 'GET', url: '/api/health', headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers['x-request-id']).toBe('abc-123');
    const made = await t.request({ method: 'GET', url: '/api/health', headers: { 'x-request-id': 'bad id\u0000' } });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves the OpenAPI document and the docs page', async () => {
    const doc = await t.request({ method: 'GET', url: '/api/openapi.json' });
    expect(doc.statusCode).toBe(200);
    expect(doc.json.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.json.paths)).toEqual(
      expect.arrayContaining(['/api/auth/users', '/api/auth/sessions', '/api/auth/refresh', '/api/health']),
    );
    expect(doc.json.paths['/api/auth/sessions'].post.requestBody).toBeDefined();
    const page = await t.request({ method: 'GET', url: '/api/reference/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
  });

  it('answers CORS preflights for any origin, but without credentials unless CORS_ORIGINS names it', async () => {
    const res = await t.request({
      method: 'OPTIONS',
      url: '/api/auth/sessions',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
    // Another site's page never calls with the visitor's cookies (the admin's or a user's session).
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      expect(res.headers['access-control-allow-methods']).toContain(method);
    }
    expect(res.body).toBe('');
  });

  it('gives a browser the CORS headers of its origin, and a client without Origin only Vary', async () => {
    const browser = await t.request({ method: 'GET', url: '/api/health', headers: { origin: 'https://app.example' } });
    expect(browser.headers['access-control-allow-credentials']).toBeUndefined();
    expect(browser.headers).toMatchObject({
      'access-control-allow-origin': 'https://app.example',
      'access-control-expose-headers': 'Content-Range, Preference-Applied, X-Request-Id, Retry-After, X-Plinth-Lsn',
      vary: 'Origin',
    });
    const server = await t.request({ method: 'GET', url: '/api/health' });
    expect(server.headers.vary).toBe('Origin');
    expect(Object.keys(server.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it("a refused credential's 401 carries the CORS headers, so the page can read the error", async () => {
    const res = await t.request({
      method: 'GET',
      url: '/api/auth/sessions/current',
      headers: { origin: 'https://app.example', authorization: 'Bearer not-a-token' },
    });
    expect(res.statusCode).toBe(401);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(res.json.error).toEqual(expect.any(String));
  });

  it('reflects the headers a preflight asks for', async () => {
    const res = await t.request({
      method: 'OPTIONS',
      url: '/api/database/records/todos',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'PATCH',
        'access-control-request-headers': 'authorization, content-type, prefer',
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-headers']).toBe('authorization, content-type, prefer');
    expect(res.headers.vary).toBe('Origin, Access-Control-Request-Headers');
  });

  it('answers an OPTIONS that is not a preflight with 400 and what a preflight needs', async () => {
    const res = await t.request({ method: 'OPTIONS', url: '/api/auth/sessions' });
    expect(res.statusCode).toBe(400);
    expect(res.json).toMatchObject({
      error: 'VALIDATION_ERROR',
      nextActions: expect.stringContaining('Access-Control-Request-Method'),
    });
  });
});

describe('unexpected failures', () => {
  it('answer 500 with a request id and nothing internal', async () => {
    const url = await createDatabase();
    const deps = await createDeps(testConfig(url));
    const app = await buildApp(deps, { logger: false });
    try {
      // Break the database under the server: a real failure, not a stub.
      const owner = postgres(url, { max: 1, onnotice: () => {} });
      await owner`drop table auth.config cascade`;
      await owner.end();
      const res = await app.inject({ method: 'GET', url: '/api/auth/public-config' });
      expect(res.statusCode).toBe(500);
      const body = res.json();
      expect(body).toEqual({
        error: 'INTERNAL_ERROR',
        statusCode: 500,
        message: expect.stringContaining(res.headers['x-request-id'] as string),
        requestId: res.headers['x-request-id'],
      });
      expect(res.body).not.toMatch(/auth\.config|relation|postgres/i);
    } finally {
      await app.close();
      await deps.close();
    }
  });
});

describe('graceful shutdown', () => {
  it('finishes an in-flight request, then refuses new connections', async () => {
    const url = await createDatabase();
    const deps = await createDeps(testConfig(url));
    const app = await buildApp(deps, { logger: false });
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    app.addHook('onRequest', async () => arrived());
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const base = `http://127.0.0.1:${port}`;
    // An admin sign-in spends ~tens of ms in argon2: long enough to be in flight during close.
    const inFlight = fetch(`${base}/api/auth/admin/sessions?client_type=server`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(TEST_ADMIN),
    });
    await requestArrived;
    const closing = app.close();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(res.headers.get('connection')).toBe('close');
    expect((await res.json()).accessToken).toEqual(expect.any(String));
    await closing;
    await expect(fetch(`${base}/api/health`)).rejects.toThrow();
    await deps.close();
  });
});
