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
});
