// Starts Plinth IN the bench's process, composed as main.ts composes it (config → deps → keys →
// app → listen) but with stdout logging off: for probes that must reach inside the server (inject()
// without sockets, the pool guard, the log store's buffer). Their figures answer a different
// question from the suite's (bench/README.md, Method): label them "in process". Everything else
// uses bench/lib/plinth.ts, the compiled server in its own process.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadPlatformKeys, type PlatformKeys } from '../../src/modules/secrets/index.js';
import { loadConfig } from '../../src/config.js';
import { createDeps, type Deps } from '../../src/deps.js';
import { freePort } from '../../test/harness/free-port.js';

export interface InProcessPlinth {
  url: string;
  app: FastifyInstance;
  deps: Deps;
  keys: PlatformKeys;
  close(): Promise<void>;
}

/** `env`: further settings (e.g. where a scenario's upstream peer listens). */
export async function startPlinthInProcess(
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<InProcessPlinth> {
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
 * startPlinthInProcess of another checkout (A/B of two trees inside this process; that tree needs
 * its own `npm ci`). Trees from before the compiled-server bench started Plinth in process from
 * bench/lib/plinth.ts (or bench/plinth.ts before bench/ had folders).
 */
export async function inProcessStarterOf(tree: string): Promise<typeof startPlinthInProcess> {
  for (const [file, name] of [
    ['bench/lib/plinth-in-process.ts', 'startPlinthInProcess'],
    ['bench/lib/plinth.ts', 'startPlinth'],
    ['bench/plinth.ts', 'startPlinth'],
  ] as const) {
    const full = path.resolve(tree, file);
    if (!existsSync(full)) continue;
    const start = ((await import(full)) as Record<string, unknown>)[name];
    // A bench/lib/plinth.ts that spawns the compiled server has no `app`: only in-process starters qualify.
    if (typeof start === 'function' && file !== 'bench/lib/plinth.ts') return start as typeof startPlinthInProcess;
    if (typeof start === 'function' && !existsSync(path.resolve(tree, 'bench/lib/compiled-server.ts')))
      return start as typeof startPlinthInProcess;
  }
  throw new Error(`${tree} has no in-process Plinth starter for the bench`);
}
