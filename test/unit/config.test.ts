// The configuration schema: defaults, and every problem reported at once.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('loadConfig', () => {
  it('gives the embedded defaults for an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 7130,
      apiBaseUrl: 'http://localhost:7130',
      databaseUrl: undefined,
      accessTokenTtlSeconds: 900,
      refreshTokenTtlSeconds: 604800,
      corsOrigins: ['*'],
      maxJsonDepth: 64,
      // As Supabase: a few seconds for anon, more for signed-in users; the admin as raw SQL.
      statementTimeouts: { anon: 3000, authenticated: 8000, projectAdmin: 30000 },
    });
    expect(config.dataDir).toMatch(/\.plinth$/);
  });

  it('reads and normalises given values', () => {
    const config = loadConfig({
      PORT: '8080',
      API_BASE_URL: 'https://api.example.com/',
      ADMIN_EMAIL: 'Admin@Example.com',
      CORS_ORIGINS: 'https://a.example, https://b.example',
      DATABASE_URL: 'postgres://u@h/db',
    });
    expect(config).toMatchObject({
      port: 8080,
      apiBaseUrl: 'https://api.example.com',
      adminEmail: 'admin@example.com',
      corsOrigins: ['https://a.example', 'https://b.example'],
      databaseUrl: 'postgres://u@h/db',
    });
  });

  it('caps access-token lifetime at 1 h by default (or the TTL when longer), never below the TTL', () => {
    expect(loadConfig({}).accessTokenMaxLifetimeSeconds).toBe(3600);
    expect(loadConfig({ ACCESS_TOKEN_TTL_SECONDS: '7200' }).accessTokenMaxLifetimeSeconds).toBe(7200);
    expect(loadConfig({ ACCESS_TOKEN_MAX_LIFETIME_SECONDS: '1800' }).accessTokenMaxLifetimeSeconds).toBe(1800);
    expect(() => loadConfig({ ACCESS_TOKEN_MAX_LIFETIME_SECONDS: '60' })).toThrow(/ACCESS_TOKEN_MAX_LIFETIME_SECONDS/);
  });

  it('takes statement timeouts by role and a JSON depth up to the ceiling', () => {
    const config = loadConfig({
      ANON_STATEMENT_TIMEOUT_MS: '0',
      AUTHENTICATED_STATEMENT_TIMEOUT_MS: '2500',
      RAW_SQL_TIMEOUT_MS: '60000',
      MAX_JSON_DEPTH: '1000',
    });
    expect(config.statementTimeouts).toEqual({ anon: 0, authenticated: 2500, projectAdmin: 60000 });
    expect(config.maxJsonDepth).toBe(1000);
    expect(() => loadConfig({ MAX_JSON_DEPTH: '5000' })).toThrow(/MAX_JSON_DEPTH/);
    expect(() => loadConfig({ ANON_STATEMENT_TIMEOUT_MS: '-1' })).toThrow(/ANON_STATEMENT_TIMEOUT_MS/);
  });

  it("takes the door's adaptive limit settings, its floor two (or a smaller pool) unless given", () => {
    expect(loadConfig({ DB_POOL_SIZE: '1' }).admission.minConcurrency).toBe(1);
    expect(loadConfig({ DB_POOL_SIZE: '8' }).admission).toEqual({
      minConcurrency: 2,
      latencyTolerance: 2,
      windowMs: 100,
      baselineMs: 60_000,
    });
    expect(loadConfig({ ADMISSION_MIN_CONCURRENCY: '4', ADMISSION_LATENCY_TOLERANCE: '1.5' }).admission).toMatchObject({
      minConcurrency: 4,
      latencyTolerance: 1.5,
    });
    expect(() => loadConfig({ ADMISSION_LATENCY_TOLERANCE: '0.5' })).toThrow(/ADMISSION_LATENCY_TOLERANCE/);
  });

  it('sandboxes function answers by default; FUNCTIONS_SANDBOX=false only with a FUNCTIONS_ORIGIN of another host', () => {
    expect(loadConfig({}).functions).toMatchObject({
      sandbox: true,
      origin: undefined,
      baseUrl: 'http://localhost:7130',
    });
    expect(() => loadConfig({ FUNCTIONS_SANDBOX: 'false' })).toThrow(/FUNCTIONS_SANDBOX.*FUNCTIONS_ORIGIN/);
    expect(
      loadConfig({
        FUNCTIONS_SANDBOX: 'false',
        FUNCTIONS_ORIGIN: 'https://fn.example.com/',
        API_BASE_URL: 'https://api.example.com',
      }).functions,
    ).toMatchObject({ sandbox: false, origin: 'https://fn.example.com', baseUrl: 'https://fn.example.com' });
    expect(() =>
      loadConfig({ FUNCTIONS_ORIGIN: 'https://api.example.com/fn', API_BASE_URL: 'https://api.example.com' }),
    ).toThrow(/FUNCTIONS_ORIGIN: must be another host/);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', PORT: '' }).port).toBe(7130);
  });

  it('reports every invalid variable in one error', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', PLINTH_ENCRYPTION_KEY: 'short', ADMIN_EMAIL: 'nope' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    for (const name of ['PORT', 'DATABASE_URL', 'PLINTH_ENCRYPTION_KEY', 'ADMIN_EMAIL']) {
      expect(message).toContain(name);
    }
  });

  it('echoes each bad value, except secrets, and masks a password inside a URL', () => {
    let message = '';
    try {
      loadConfig({
        PORT: 'eighty',
        DATABASE_URL: 'mysql://app:hunter2-secret@db.example.com/app',
        PLINTH_ENCRYPTION_KEY: 'short-but-secret',
        ADMIN_PASSWORD: 'tiny',
      });
    } catch (err) {
      message = (err as Error).message;
    }
    const line = (name: string) => message.split('\n').find((l) => l.trimStart().startsWith(`${name}:`)) ?? '';
    expect(line('PORT')).toMatch(/\(got "eighty"\)$/);
    expect(line('DATABASE_URL')).toMatch(/\(got "mysql:\/\/app:\*\*\*@db\.example\.com\/app"\)$/);
    expect(line('PLINTH_ENCRYPTION_KEY')).toMatch(/\(the value is a secret and not shown; it has 16 characters\)$/);
    expect(line('ADMIN_PASSWORD')).toMatch(/\(the value is a secret and not shown; it has 4 characters\)$/);
    for (const secret of ['hunter2', 'short-but-secret', 'tiny']) expect(message).not.toContain(secret);
  });
});
