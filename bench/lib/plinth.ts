// Starts Plinth in this process exactly as main.ts does (config → deps → app → listen), on the
// benchmark's database and a free loopback port.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadPlatformKeys, type PlatformKeys } from '../../src/modules/secrets/index.js';
import { loadConfig } from '../../src/config.js';
import { createDeps, type Deps } from '../../src/deps.js';
import { freePort } from '../../test/harness/free-port.js';

export interface RunningPlinth {
  url: string;
  app: FastifyInstance;
  deps: Deps;
  keys: PlatformKeys;
  close(): Promise<void>;
}

/** `env`: further settings (e.g. where a scenario's upstream peer listens). */
export async function startPlinth(databaseUrl: string, env: Record<string, string> = {}): Promise<RunningPlinth> {
  const port = await freePort();
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    PLINTH_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    ADMIN_EMAIL: 'admin@bench.local',
    ADMIN_PASSWORD: randomBytes(12).toString('hex'),
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: String(port),
    FUNCTIONS_RUNTIME_PORT: '0',
    // LOGS_STORE=false in the bench's environment: the same run without stored logs (A/B).
    ...(process.env.LOGS_STORE ? { LOGS_STORE: process.env.LOGS_STORE } : {}),
    ...env,
  });
  const deps = await createDeps(config);
  try {
    const keys = await loadPlatformKeys(deps);
    const app = await buildApp(deps, { logger: false, keys });
    await deps.runtime.start();
    await app.listen({ port, host: '127.0.0.1' });
    return {
      url: `http://127.0.0.1:${port}`,
      app,
      deps,
      keys,
      async close() {
        await app.close();
        await deps.close();
      },
    };
  } catch (err) {
    await deps.close();
    throw err;
  }
}

/**
 * startPlinth of another checkout (A/B of two trees in one process; that tree needs its own `npm ci`).
 * Trees from before bench/ had folders keep it at bench/plinth.ts.
 */
export async function plinthStarterOf(tree: string): Promise<typeof startPlinth> {
  const file = ['bench/lib/plinth.ts', 'bench/plinth.ts'].map((f) => path.resolve(tree, f)).find((f) => existsSync(f));
  if (!file) throw new Error(`${tree} has neither bench/lib/plinth.ts nor bench/plinth.ts`);
  const other = (await import(file)) as { startPlinth: typeof startPlinth };
  return other.startPlinth;
}
