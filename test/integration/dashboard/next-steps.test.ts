// The snippets the console's empty states offer (dashboard/src/ui/next-steps.ts) name things that
// exist: every `npx plinth …` line reaches a real command of the built CLI (its own help, not a
// group's list of commands), every `client.a.b(` of an SDK snippet is a function of the official
// client, and every curl line's method and path is an operation of the server's OpenAPI document.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createClient } from '@insforge/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NextStep, nextSteps } from '../../../dashboard/src/ui/next-steps.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';
import { runCli } from '../cli/cli-runner.js';

let cwd = '';
let t: TestApp;
beforeAll(async () => {
  cwd = await mkdtemp(path.join(tmpdir(), 'plinth-next-steps-'));
  t = await startTestApp();
});
afterAll(async () => {
  await rm(cwd, { recursive: true, force: true });
  await t?.close();
});

/** Every snippet of every empty state, with sample arguments. */
const all: { screen: string; step: NextStep }[] = Object.entries(nextSteps).flatMap(([screen, make]) =>
  (make as (...args: string[]) => NextStep[])('todos', 'docs/', 'test').map((step) => ({ screen, step })),
);

/** The words of a shell line, quotes removed, up to a comment. */
const words = (line: string): string[] =>
  (line.replace(/\s+#.*$/, '').match(/"[^"]*"|'[^']*'|\S+/g) ?? []).map((w) => w.replace(/^(["'])(.*)\1$/, '$2'));

const cliLines = all
  .filter(({ step }) => step.kind === 'CLI')
  .flatMap(({ screen, step }) =>
    step.code
      .split('\n')
      .filter((line) => line.startsWith('npx plinth '))
      .map((line) => ({ screen, line })),
  );

const sdkCalls = all
  .filter(({ step }) => step.kind === 'SDK')
  .flatMap(({ screen, step }) =>
    [...step.code.matchAll(/client((?:\.\w+)+)\(/g)].map((m) => ({ screen, call: m[1]! })),
  );

const curlCalls = all
  .filter(({ step }) => step.kind === 'curl')
  .map(({ screen, step }) => {
    const [, method = '', path = ''] = /^curl -X (\w+) "\$PLINTH_URL([^"]+)"/.exec(step.code) ?? [];
    return { screen, method, path };
  });

describe('the empty states’ next steps', () => {
  it('offer CLI and SDK snippets', () => {
    expect(cliLines.length).toBeGreaterThanOrEqual(12);
    expect(sdkCalls.length).toBeGreaterThanOrEqual(6);
    expect(curlCalls.length).toBeGreaterThanOrEqual(2);
  });

  it.each(cliLines)('$screen: `$line` is a command of the CLI', async ({ line }) => {
    const args = words(line).slice(2);
    const res = await runCli(cwd, [...args, '--help']);
    expect(res.code, res.stderr).toBe(0);
    const usage = /^Usage: plinth ((?:[a-z-]+ )*[a-z-]+) /m.exec(res.stdout);
    expect(usage, res.stdout).not.toBeNull();
    // The help of the command itself, whose path the line spells out, not a group's list.
    expect(args.join(' ').startsWith(usage![1]!)).toBe(true);
    expect(res.stdout).not.toMatch(/^Commands:/m);
  });

  it.each(curlCalls)('$screen: curl $method $path is an operation of the API', async ({ method, path }) => {
    const { paths } = (await t.request({ method: 'GET', url: '/api/openapi.json' })).json as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operation = Object.entries(paths).find(([template, ops]) => {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      return pattern.test(path) && method.toLowerCase() in ops;
    });
    expect(operation, `${method} ${path}`).toBeDefined();
  });

  it.each(sdkCalls)('$screen: client$call() is a function of the official client', ({ call }) => {
    const client = createClient({ baseUrl: 'http://127.0.0.1:9', anonKey: 'anon_test' }) as unknown as Record<
      string,
      unknown
    >;
    let at: unknown = client;
    for (const name of call.slice(1).split('.')) at = (at as Record<string, unknown>)?.[name];
    expect(typeof at).toBe('function');
  });
});
