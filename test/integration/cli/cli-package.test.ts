// The CLI as an app installs it: cli/ packed (reusing the built cli/dist, no scripts run) and
// installed as a dev dependency into a fresh app folder; `npx plinth --help` and a real command
// against a listening Plinth then run the compiled JavaScript, configured by the app's .env file.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

const run = promisify(execFile);
const CLI_PACKAGE = fileURLToPath(new URL('../../../cli', import.meta.url));
/** npm without the test machine's PLINTH_ settings. */
const cleanEnv = () =>
  Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PLINTH_'))) as NodeJS.ProcessEnv;

// Each test spawns several processes (npm/npx here), slow on a busy machine: time bound, not speed.
vi.setConfig({ testTimeout: 120_000 });

let t: TestApp;
let app: string;

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const work = await mkdtemp(path.join(tmpdir(), 'plinth-package-'));
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--pack-destination', work, CLI_PACKAGE], {
    env: cleanEnv(),
  });
  const tarball = path.join(work, stdout.trim().split('\n').at(-1)!);
  app = path.join(work, 'app');
  await run('mkdir', [app]);
  await writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'my-app', private: true }));
  await run('npm', ['install', '--save-dev', tarball, '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: app,
    env: cleanEnv(),
  });
}, 180_000);
afterAll(() => t.close());

describe('plinth-cli installed into an app folder', () => {
  it('installs the compiled tool and the SQL parser (with its types package), not the server', async () => {
    const installed = path.join(app, 'node_modules', 'plinth-cli');
    expect(existsSync(path.join(installed, 'dist', 'cli.js'))).toBe(true);
    expect(existsSync(path.join(installed, 'cli', 'main.ts'))).toBe(false);
    expect((await readdir(path.join(app, 'node_modules'))).filter((n) => !n.startsWith('.')).sort()).toEqual([
      '@pgsql',
      'libpg-query',
      'plinth-cli',
    ]);
  });

  it('npx plinth --help lists the commands', async () => {
    const { stdout } = await run('npx', ['--no-install', 'plinth', '--help'], { cwd: app, env: cleanEnv() });
    for (const command of ['login', 'db', 'functions', 'secrets', 'storage', 'logs', 'backup'])
      expect(stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
  });

  it('runs a real command against the server configured in the app’s .env', async () => {
    const url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    await writeFile(path.join(app, '.env'), `PLINTH_URL=${url}\nPLINTH_API_KEY="${t.apiKey}"\n`);
    const { stdout } = await run('npx', ['--no-install', 'plinth', 'db', 'query', 'select 6 * 7 as answer', '--json'], {
      cwd: app,
      env: cleanEnv(),
    });
    expect(JSON.parse(stdout).rows).toEqual([{ answer: 42 }]);
    const config = await run('npx', ['--no-install', 'plinth', 'config'], { cwd: app, env: cleanEnv() });
    expect(config.stdout).toContain('source: .env');
  });
});
