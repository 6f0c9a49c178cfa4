// Deny by default: a route that declares no access level stops the app from starting (naming the
// route) instead of being served to anyone; an explicit level, or an access group's, is honoured.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createDeps, type Deps } from '../../src/deps.js';
import { accessGroup } from '../../src/http/route-access.js';
import { loadPlatformKeys, type PlatformKeys } from '../../src/modules/secrets/index.js';
import { bearer, createDatabase, testConfig } from '../harness/test-app.js';

let deps: Deps;
let keys: PlatformKeys;
beforeAll(async () => {
  deps = await createDeps(testConfig(await createDatabase()));
  keys = await loadPlatformKeys(deps);
});
afterAll(() => deps.close());

const ok = async () => ({ ok: true });

/** The real app, started, with `extra` registered after every module (as one more module would be). */
async function startWith(extra: (app: FastifyInstance) => Promise<void>): Promise<FastifyInstance> {
  const app = await buildApp(deps, { logger: false, keys });
  try {
    await app.register(extra);
    await app.ready();
  } catch (err) {
    await app.close().catch(() => {});
    throw err;
  }
  return app;
}

/** Whether an app with `extra` starts: 'started', or the startup error. */
const startup = (extra: (app: FastifyInstance) => Promise<void>) =>
  startWith(extra).then(async (app) => {
    await app.close();
    return 'started';
  });

describe('a route without an access level', () => {
  it('makes startup fail with its method and URL, even beside an access group', async () => {
    const started = startup(async (scope) => {
      // The group's default covers its own routes only, not a sibling's.
      await scope.register(
        accessGroup('public', async (group) => {
          group.get('/api/test/grouped', ok);
        }),
      );
      await scope.register(async (module) => {
        module.post('/api/test/forgotten', ok);
      });
    });
    await expect(started).rejects.toThrow(/POST \/api\/test\/forgotten declares no access level/);
  });

  it('is refused when its access is present but undefined', async () => {
    const started = startup(async (scope) => {
      scope.get('/api/test/undefined', { config: { access: undefined } }, ok);
    });
    await expect(started).rejects.toThrow(/GET \/api\/test\/undefined declares no access level/);
  });
});

describe('declared access levels', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await startWith(async (scope) => {
      scope.get('/api/test/public', { config: { access: 'public' } }, ok);
      await scope.register(
        accessGroup('admin', async (group) => {
          group.get('/api/test/admin-group', ok);
          group.get('/api/test/public-in-admin-group', { config: { access: 'public' } }, ok);
        }),
      );
    });
  });
  afterAll(() => app.close());

  const get = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });

  it('serves an explicitly public route to anyone, ignoring a bad credential', async () => {
    expect((await get('/api/test/public')).statusCode).toBe(200);
    expect((await get('/api/test/public', bearer('garbage'))).statusCode).toBe(200);
  });

  it("holds a grouped route to its group's level, and its HEAD twin too", async () => {
    expect((await get('/api/test/admin-group')).statusCode).toBe(401);
    expect((await app.inject({ method: 'HEAD', url: '/api/test/admin-group' })).statusCode).toBe(401);
    expect((await get('/api/test/admin-group', bearer(keys.anonKey))).statusCode).toBe(403);
    expect((await get('/api/test/admin-group', bearer(keys.apiKey))).statusCode).toBe(200);
  });

  it("lets a route's own level override its group's", async () => {
    expect((await get('/api/test/public-in-admin-group')).statusCode).toBe(200);
  });

  it('still answers an unknown path 404, whatever the credential', async () => {
    const res = await get('/api/test/nowhere', bearer('garbage'));
    expect(res.statusCode).toBe(404);
    expect(res.json().error).toBe('NOT_FOUND');
  });
});
