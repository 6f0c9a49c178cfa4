// `plinth logs` against a listening Plinth: every example `--help` shows for `logs tail` and
// `logs search` is accepted (issue 39: the old examples were refused), a source the server does
// not know is refused by the CLI itself, search prints stored entries, and a tail whose server
// stops says it is reconnecting instead of ending silently.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import { startTestApp, type TestApp } from '../../harness/test-app.js';
import { projectDir, runCli, spawnCli } from './cli-runner.js';

vi.setConfig({ testTimeout: 120_000 });

let t: TestApp;
let baseUrl: string;
let dir: string;
const env = () => ({ PLINTH_URL: baseUrl, PLINTH_API_KEY: t.apiKey });

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  t = await startTestApp({ env: { API_BASE_URL: baseUrl } });
  await t.app.listen({ port, host: '127.0.0.1' });
  dir = await projectDir();
}, 60_000);
afterAll(() => t.close());

/** The example command lines of a command's `--help`, without `$ plinth`. */
async function helpExamples(command: string): Promise<string[][]> {
  const help = await runCli(dir, ['logs', command, '--help']);
  expect(help.code).toBe(0);
  const section = help.stdout.split('\nExamples:\n')[1] ?? '';
  const lines = section.split('\n').filter((line) => line.startsWith('  $ plinth '));
  expect(lines.length).toBeGreaterThan(1);
  return lines.map((line) => line.replace('  $ plinth ', '').split(' '));
}

/** Runs a tail until the server has accepted its stream, or until it exits (refused). */
async function tailAccepted(args: string[]): Promise<{ accepted: boolean; stderr: string }> {
  const tail = spawnCli(dir, args, env());
  try {
    const accepted = await Promise.race([
      tail.waitFor('stderr', 'Tailing logs').then(() => true),
      tail.exited.then(() => false),
    ]);
    return { accepted, stderr: tail.output().stderr };
  } finally {
    tail.child.kill('SIGINT');
    await tail.exited;
  }
}

describe('plinth logs', () => {
  it('every `logs tail --help` example is accepted by the server', async () => {
    for (const example of await helpExamples('tail')) {
      expect(await tailAccepted(example), example.join(' ')).toMatchObject({ accepted: true });
    }
  });

  it('every `logs search --help` example is accepted by the server', async () => {
    for (const example of await helpExamples('search')) {
      const run = await runCli(dir, example, env());
      expect(run.code, `${example.join(' ')}: ${run.stderr}`).toBe(0);
    }
  });

  it('a source the server does not know is refused before any request, naming the choices', async () => {
    const run = await runCli(dir, ['logs', 'tail', '--source', 'http'], env());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "option '--source <source>' argument 'http' is invalid. Allowed choices are requests, functions, audit, errors.",
    );
  });

  it('search prints the stored entries matching a text (here a request id)', async () => {
    const res = await fetch(`${baseUrl}/api/auth/sessions/current`, { headers: { 'x-api-key': t.apiKey } });
    await res.arrayBuffer();
    const requestId = res.headers.get('x-request-id')!;
    expect(requestId).toBeTruthy();
    // The entry is queued once the answer is sent: flushed and searched until it is there.
    const found = await vi.waitFor(
      async () => {
        await t.app.logs!.flush();
        const run = await runCli(dir, ['logs', 'search', requestId], env());
        expect(run.stdout).not.toBe('');
        return run;
      },
      { timeout: 30_000, interval: 200 },
    );
    expect(found.code).toBe(0);
    expect(found.stdout).toMatch(/^\d{4}-\d\d-\d\dT\S+ \[requests\] GET \/api\/auth\/sessions\/current \d{3}/);
    expect(found.stdout.trim().split('\n')).toHaveLength(1);
  });

  it('a tail whose server stops says it is reconnecting and keeps running', async () => {
    const tail = spawnCli(dir, ['logs', 'tail'], env());
    try {
      await tail.waitFor('stderr', 'Tailing logs');
      await t.app.close();
      await tail.waitFor('stderr', 'The log stream ended (the server stopped or restarted): reconnecting…');
      expect(tail.child.exitCode).toBeNull();
    } finally {
      tail.child.kill('SIGINT');
      await tail.exited;
    }
  });
});
