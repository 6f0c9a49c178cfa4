// The compiled server as `npm start` runs it (`node dist/main.js`, built by `npm install`, no
// TypeScript loader): it becomes ready, and its log format follows stdout: JSON lines in a pipe,
// pretty lines when LOG_FORMAT=pretty forces them; the start banner follows the same format.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import { pollUntil } from '../../harness/server-process.js';
import { createDatabase, TEST_ENCRYPTION_KEY } from '../../harness/test-database.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Compiled {
  child: ChildProcess;
  baseUrl: string;
  stdout(): string;
}

const started: Compiled[] = [];

/** Spawns `node dist/main.js` with stdout piped to this test and waits until it has a log line. */
async function startCompiled(extraEnv: Record<string, string>): Promise<Compiled> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATABASE_URL: await createDatabase(),
      PORT: String(port),
      HOST: '127.0.0.1',
      FUNCTIONS_RUNTIME_PORT: String(await freePort()),
      PLINTH_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      ADMIN_PASSWORD: randomBytes(12).toString('hex'),
      LOG_LEVEL: 'info',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr!.resume();
  const server = { child, baseUrl: `http://127.0.0.1:${port}`, stdout: () => out };
  started.push(server);
  await pollUntil('the compiled server to be ready', 60_000, async () => {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${out}`);
    const res = await fetch(`${server.baseUrl}/api/health/ready`).catch(() => undefined);
    await res?.arrayBuffer();
    return res?.status === 200;
  });
  // The function runtime's start is logged once it answers.
  await pollUntil('a log line', 30_000, () => out.includes('function runtime running'));
  return server;
}

/** The lines of the function runtime's start entry. */
const logLines = (out: string) => out.split('\n').filter((line) => line.includes('function runtime running'));

let plain: Compiled;
let pretty: Compiled;

beforeAll(async () => {
  expect(existsSync(`${ROOT}dist/main.js`), 'npm install (or npm run build) compiles dist/').toBe(true);
  [plain, pretty] = await Promise.all([startCompiled({}), startCompiled({ LOG_FORMAT: 'pretty' })]);
});

afterAll(async () => {
  await Promise.all(
    started.map(async ({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }),
  );
});

describe('the compiled server', () => {
  it('starts from dist/ and answers', async () => {
    const res = await fetch(`${plain.baseUrl}/api/health`);
    expect(res.status).toBe(200);
    expect(plain.stdout()).toContain('Plinth is listening');
  });

  it('writes JSON log lines when stdout is a pipe', () => {
    const [line] = logLines(plain.stdout());
    const entry = JSON.parse(line ?? '');
    expect(entry).toMatchObject({ level: 30, msg: expect.stringContaining('function runtime running') });
    expect(typeof entry.time).toBe('number');
  });

  it('writes nothing but JSON entries to a pipe: the start banner is log entries too', () => {
    const lines = plain.stdout().split('\n').filter(Boolean);
    const entries = lines.map((line) => {
      expect(() => JSON.parse(line), line).not.toThrow();
      return JSON.parse(line) as { level: number; msg: string };
    });
    expect(entries.map((e) => e.msg)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Plinth is listening on /), expect.stringMatching(/^Database: /)]),
    );
  });

  it('prints the banner as plain lines when LOG_FORMAT=pretty', () => {
    expect(pretty.stdout()).toMatch(/^Plinth is listening on http:\/\/\S+ \(API reference: /m);
  });

  it('writes one pretty line per entry when LOG_FORMAT=pretty, even in a pipe', () => {
    const [line] = logLines(pretty.stdout());
    expect(() => JSON.parse(line ?? '')).toThrow();
    expect(line).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] .*INFO.*: .*function runtime running on 127\.0\.0\.1:\d+/);
  });
});

describe('the function runtime in the compiled server’s logs', () => {
  it('prints no Deno deprecation warning when functions are invoked', { timeout: 90_000 }, async () => {
    const apiKey = /API key:\s+(ik_[0-9a-f]+)/.exec(plain.stdout())?.[1];
    expect(apiKey, 'the first start prints the API key').toBeDefined();
    const headers = { 'x-api-key': apiKey!, 'content-type': 'application/json' };
    const deployed = await fetch(`${plain.baseUrl}/api/functions`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ slug: 'quiet', name: 'quiet', code: 'export default () => new Response("ok");' }),
    });
    expect(deployed.status).toBe(201);
    // Deno warned (on stderr, read line by line into the log) as the runtime took its first request,
    // before it answered: by the time the last request's log line is written, the warning was too.
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${plain.baseUrl}/functions/quiet`, { method: 'POST', headers });
      expect(await res.text()).toBe('ok');
    }
    const invocationLines = () =>
      plain
        .stdout()
        .split('\n')
        .filter((line) => line.includes('"/functions/quiet"'));
    await pollUntil('the invocations’ request log lines', 30_000, () => invocationLines().length >= 3);
    const runtimeLines = plain
      .stdout()
      .split('\n')
      .filter((line) => line.includes('function runtime:'));
    expect(runtimeLines).toEqual([]);
    expect(plain.stdout()).not.toMatch(/legacy behavior|deprecat/i);
  });
});
