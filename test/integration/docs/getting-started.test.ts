// docs/getting-started.md, replayed as a reader follows it: an empty app folder (with the official
// client, tsx and the plinth CLI installed from this checkout, as `npm install` would put them),
// every file written and every command run in the tutorial's order against a listening Plinth
// with its function runtime, and each printed output compared with the one the page shows. The
// only thing not taken from the page is `.env`, whose keys are this server's.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFunctionsApp, type FunctionsApp } from '../../harness/functions-app.js';
import { readTutorial, type Step } from './tutorial.js';

// Each step starts processes (npx, tsx), slow on a busy machine: a bound on hangs, not on speed.
vi.setConfig({ testTimeout: 60_000 });

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const sections = readTutorial(await readFile(path.join(ROOT, 'docs/getting-started.md'), 'utf8'));

let t: FunctionsApp;
let app: string;

/** What `npm install @insforge/sdk` and `npm install --save-dev tsx ../plinth/cli` leave behind. */
async function installDependencies(dir: string) {
  const modules = path.join(dir, 'node_modules');
  await mkdir(path.join(modules, '@insforge'), { recursive: true });
  await mkdir(path.join(modules, '.bin'));
  await symlink(path.join(ROOT, 'node_modules/@insforge/sdk'), path.join(modules, '@insforge/sdk'), 'dir');
  await symlink(path.join(ROOT, 'node_modules/tsx'), path.join(modules, 'tsx'), 'dir');
  await symlink(path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(modules, '.bin/tsx'));
  await symlink(path.join(ROOT, 'cli/bin/plinth.js'), path.join(modules, '.bin/plinth'));
}

beforeAll(async () => {
  t = await startFunctionsApp();
  app = await mkdtemp(path.join(tmpdir(), 'plinth-tutorial-'));
  await writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'todo-app', private: true, type: 'module' }));
  await installDependencies(app);
  await writeFile(
    path.join(app, '.env'),
    `PLINTH_URL=${t.baseUrl}\nPLINTH_API_KEY=${t.apiKey}\nPLINTH_ANON_KEY=${t.anonKey}\n`,
  );
}, 90_000);
afterAll(() => t?.close());

/** The environment of the machine running the tests, without its own Plinth settings. */
function readerEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => !e[0].startsWith('PLINTH_') && !e[0].startsWith('VITEST') && e[1] !== undefined,
    ),
  );
}

function run(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: app,
      env: readerEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A path of the page, its `*` matched against the files the earlier steps made. */
async function resolvePath(pattern: string): Promise<string> {
  if (!pattern.includes('*')) return path.join(app, pattern);
  const dir = path.dirname(pattern);
  const re = new RegExp(
    `^${path
      .basename(pattern)
      .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')}$`,
  );
  const matches = (await readdir(path.join(app, dir))).filter((f) => re.test(f));
  expect(matches, `exactly one file matches ${pattern}`).toHaveLength(1);
  return path.join(app, dir, matches[0]!);
}

async function replay(step: Step) {
  if (step.kind === 'file') {
    const file = await resolvePath(step.path);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, step.content);
    return;
  }
  const result = await run(step.script);
  const where = `docs/getting-started.md line ${step.line}:\n${step.script}\n${result.stderr}`;
  expect(result.code, where).toBe(0);
  if (step.expectedOutput !== undefined) expect(result.stdout, where).toBe(step.expectedOutput);
}

/** What each section leaves on the server, checked after the section ran. */
const afterSection: Record<string, () => Promise<void>> = {
  '3. A table, by migration': async () => {
    const tables = await t.request({ method: 'GET', url: '/api/database/tables', headers: { 'x-api-key': t.apiKey } });
    expect(tables.json).toContain('todos');
  },
  '10. A schedule': async () => {
    const res = await t.request({ method: 'GET', url: '/api/schedules', headers: { 'x-api-key': t.apiKey } });
    expect(res.json).toEqual([
      expect.objectContaining({
        name: 'morning-greeting',
        functionSlug: 'greet',
        timeZone: 'Europe/Paris',
        isActive: true,
      }),
    ]);
  },
  '4. Generated types': async () => {
    expect(await readFile(path.join(app, 'database.types.ts'), 'utf8')).toMatch(/todos: \{\s*Row: \{/);
  },
  '11. Host the front end': async () => {
    const page = await t.request({ method: 'GET', url: '/', headers: { host: 'app.localhost' } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<title>To-dos</title>');
  },
};

describe('docs/getting-started.md', () => {
  it('has the sections a newcomer needs, each with something to run', () => {
    const runnable = sections.filter((s) => s.steps.some((step) => step.kind === 'run'));
    expect(runnable.map((s) => s.title)).toEqual(expect.arrayContaining(Object.keys(afterSection)));
    expect(runnable.length).toBeGreaterThanOrEqual(9);
  });

  for (const section of sections) {
    if (section.steps.length === 0) continue;
    it(section.title, async () => {
      for (const step of section.steps) await replay(step);
      await afterSection[section.title]?.();
    });
  }

  // tsx runs TypeScript without checking it: check the scripts against the client's types and the
  // generated database.types.ts, as the reader's editor would.
  it("the app's scripts type-check", async () => {
    await mkdir(path.join(app, 'node_modules/@types'), { recursive: true });
    await symlink(path.join(ROOT, 'node_modules/@types/node'), path.join(app, 'node_modules/@types/node'), 'dir');
    const compilerOptions = {
      strict: true,
      noEmit: true,
      module: 'esnext',
      moduleResolution: 'bundler',
      target: 'es2022',
      types: ['node'],
      skipLibCheck: true,
    };
    await writeFile(path.join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['*.ts'] }));
    const checked = await run(`node ${JSON.stringify(path.join(ROOT, 'node_modules/typescript/bin/tsc'))} -p .`);
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.code).toBe(0);
  });
});
