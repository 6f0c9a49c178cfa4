// Starts Plinth for one test file: a fresh database cloned from the migrated template, the real
// app on it (inject() or a real port), a manual clock, and helpers to make callers of each kind.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { ManualClock } from '../../src/core/clock.js';
import { createDeps, type Deps } from '../../src/deps.js';
import { loadPlatformKeys, type PlatformKeys } from '../../src/modules/secrets/index.js';
import { createDatabase, TEST_ADMIN, TEST_ENCRYPTION_KEY } from './test-database.js';

export { createDatabase, TEST_ADMIN, TEST_ENCRYPTION_KEY };

/** The authentication configuration of a fresh database (tests put it back after changing it). */
export const DEFAULT_AUTH_CONFIG = {
  requireEmailVerification: false,
  passwordMinLength: 6,
  requireNumber: false,
  requireLowercase: false,
  requireUppercase: false,
  requireSpecialChar: false,
  verifyEmailMethod: 'code',
  resetPasswordMethod: 'code',
  allowedRedirectUrls: [],
  disableSignup: false,
  anonymousSignInsEnabled: false,
  anonymousRetentionDays: 30,
  linkOAuthByEmail: false,
};

export interface Server {
  app: FastifyInstance;
  deps: Deps;
  keys: PlatformKeys;
  close(): Promise<void>;
}

export interface TestApp extends Server {
  config: Config;
  clock: ManualClock;
  databaseUrl: string;
  apiKey: string;
  anonKey: string;
  /** app.inject with JSON helpers; `json` is the parsed body (undefined when not JSON). */
  request(options: InjectOptions): Promise<LightMyRequestResponse & { json: any }>;
  /** Registers a user through the API (mobile client) and returns its tokens. */
  signUp(
    email?: string,
    password?: string,
  ): Promise<{ user: any; accessToken: string; refreshToken: string; email: string; password: string }>;
  /** An admin access token from the admin sign-in endpoint. */
  adminToken(): Promise<string>;
  /** A second server on the same database (as another instance behind a load balancer). */
  startAnotherServer(): Promise<Server>;
}

export interface TestAppOptions {
  /**
   * Settings; a function gets the file's database URL (e.g. to put a pooler in front of it). An
   * undefined value unsets a default (`ADMIN_PASSWORD: undefined`: the password is generated).
   */
  env?: Record<string, string | undefined> | ((databaseUrl: string) => Record<string, string | undefined>);
  /** A database of the file's own (e.g. on a cluster it started); default: a clone of the template. */
  databaseUrl?: string;
}

async function startServer(config: Config, clock: ManualClock): Promise<Server> {
  const deps = await createDeps(config, { clock });
  const keys = await loadPlatformKeys(deps);
  const app = await buildApp(deps, { logger: false, keys });
  await app.ready();
  return {
    app,
    deps,
    keys,
    async close() {
      await app.close();
      await deps.close();
    },
  };
}

/** The configuration tests run with, on the given database. */
export function testConfig(databaseUrl: string, env: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    DATABASE_URL: databaseUrl,
    PLINTH_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    ADMIN_EMAIL: TEST_ADMIN.email,
    ADMIN_PASSWORD: TEST_ADMIN.password,
    LOG_LEVEL: 'silent',
    DB_POOL_SIZE: '5',
    ...env,
  });
}

export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const databaseUrl = options.databaseUrl ?? (await createDatabase());
  const config = testConfig(databaseUrl, typeof options.env === 'function' ? options.env(databaseUrl) : options.env);
  const clock = new ManualClock();
  const server = await startServer(config, clock);
  const { app } = server;
  let counter = 0;

  const request: TestApp['request'] = async (opts) => {
    const res = await app.inject(opts);
    let json: unknown;
    try {
      json = res.headers['content-type']?.toString().includes('json') ? res.json() : undefined;
    } catch {
      json = undefined;
    }
    return Object.assign(res, { json });
  };

  return {
    ...server,
    config,
    clock,
    databaseUrl,
    apiKey: server.keys.apiKey,
    anonKey: server.keys.anonKey,
    request,
    async signUp(email, password = 'correct-horse-9') {
      const address = email ?? `user${++counter}-${randomBytes(3).toString('hex')}@example.com`;
      const res = await request({
        method: 'POST',
        url: '/api/auth/users?client_type=mobile',
        payload: { email: address, password },
        // An address of its own, so many sign-ups in one file stay under the per-IP sign-up limit.
        remoteAddress: `10.254.${(counter >> 8) & 255}.${counter & 255}`,
      });
      if (res.statusCode !== 200) throw new Error(`sign-up failed: ${res.statusCode} ${res.body}`);
      return { ...res.json, email: address, password };
    },
    async adminToken() {
      const res = await request({
        method: 'POST',
        url: '/api/auth/admin/sessions?client_type=server',
        payload: TEST_ADMIN,
      });
      if (res.statusCode !== 200) throw new Error(`admin sign-in failed: ${res.statusCode} ${res.body}`);
      return res.json.accessToken;
    },
    startAnotherServer: () => startServer(config, clock),
  };
}

/** The value of a Set-Cookie header's cookie, and its attributes. */
export function cookieFrom(res: LightMyRequestResponse, name: string) {
  return res.cookies.find((c) => c.name === name) as
    | {
        name: string;
        value: string;
        path?: string;
        httpOnly?: boolean;
        maxAge?: number;
        sameSite?: string;
        secure?: boolean;
      }
    | undefined;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
