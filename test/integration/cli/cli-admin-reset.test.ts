// `plinth admin reset-password` (issue 39: a lost admin password had no way back): run beside a
// running server whose admin password was generated, on its database and master key, it prints a
// new password that signs in at once, without a restart; `--password-stdin` takes one instead and
// the previous one stops working. Refused, with what to do: another email than the admin's,
// ADMIN_PASSWORD in the environment, a wrong master key, a short password, no database at all.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, TEST_ADMIN, TEST_ENCRYPTION_KEY, type TestApp } from '../../harness/test-app.js';
import { projectDir } from './cli-runner.js';

vi.setConfig({ testTimeout: 120_000 });

const BIN = fileURLToPath(new URL('../../../cli/bin/plinth.js', import.meta.url));
let t: TestApp;
let dir: string;

beforeAll(async () => {
  // No ADMIN_PASSWORD: the first start generated one and stored it, as `npm start` does.
  t = await startTestApp({ env: { ADMIN_PASSWORD: undefined } });
  dir = await projectDir();
}, 60_000);
afterAll(() => t.close());

/** The server's environment, as an operator runs the command with it (nothing else of this process). */
const serverEnv = (extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  DATABASE_URL: t.databaseUrl,
  PLINTH_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
  ADMIN_EMAIL: TEST_ADMIN.email,
  ...extra,
});

function resetPassword(args: string[], env: Record<string, string>, input?: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'admin', 'reset-password', ...args], {
      cwd: dir,
      env,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin?.end(input);
  });
}

const signIn = (password: string) =>
  t.request({ method: 'POST', url: '/api/auth/admin/sessions', payload: { email: TEST_ADMIN.email, password } });

describe('plinth admin reset-password', () => {
  it('prints a new password once, which signs in on the running server at once', async () => {
    const res = await resetPassword([TEST_ADMIN.email], serverEnv());
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.split('\n');
    expect(lines[0]).toBe(`New admin password of ${TEST_ADMIN.email} (in DATABASE_URL):`);
    const password = lines[1]!.trim();
    expect(password).toMatch(/^\S{20,}$/);
    expect(lines[2]).toMatch(/^It is shown once and works at once, on every server\./);
    expect((await signIn(password)).statusCode).toBe(200);
    expect((await signIn('admin-password-123')).statusCode).toBe(401);
  });

  it('takes the password from stdin; the previous one stops working', async () => {
    const first = await resetPassword(['--json'], serverEnv());
    const generated = JSON.parse(first.stdout).password as string;
    expect((await signIn(generated)).statusCode).toBe(200);

    const chosen = 'correct horse battery staple';
    const res = await resetPassword(['--password-stdin'], serverEnv(), `${chosen}\n`);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe(`The admin password of ${TEST_ADMIN.email} is replaced (in DATABASE_URL).\n`);
    expect(res.stdout).not.toContain(chosen);
    expect((await signIn(chosen)).statusCode).toBe(200);
    expect((await signIn(generated)).statusCode).toBe(401);
  });

  it.each([
    [
      'another email than the admin’s',
      ['someone@else.test'],
      {},
      undefined,
      `someone@else.test is not the admin of this server: the admin is ${TEST_ADMIN.email}. Run \`plinth admin reset-password ${TEST_ADMIN.email}\``,
    ],
    [
      'ADMIN_PASSWORD in the environment',
      [],
      { ADMIN_PASSWORD: 'from-the-environment' },
      undefined,
      'The admin password is set by ADMIN_PASSWORD in the environment, which overrides the stored one. Change ADMIN_PASSWORD',
    ],
    [
      'another master key',
      [],
      { PLINTH_ENCRYPTION_KEY: 'b'.repeat(64) },
      undefined,
      'The master key does not open the secrets stored in DATABASE_URL.',
    ],
    ['a short password', ['--password-stdin'], {}, 'short\n', 'The new password has 5 characters.'],
  ])('refuses %s and changes nothing', async (_label, args, extra, input, message) => {
    const before = await signIn('correct horse battery staple');
    const res = await resetPassword(args, serverEnv(extra), input);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr.startsWith(`Error: ${message}`), res.stderr).toBe(true);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect((await signIn('correct horse battery staple')).statusCode).toBe(before.statusCode);
  });

  it('refuses a folder with no database, saying where to run it', async () => {
    const env = serverEnv({ PLINTH_DATA_DIR: `${dir}/nothing-here` });
    delete (env as Record<string, string | undefined>).DATABASE_URL;
    const res = await resetPassword(['--json'], env);
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stderr)).toMatchObject({
      error: 'RESET_REFUSED',
      message: expect.stringMatching(/^No Plinth database in .*nothing-here\./),
      nextActions: expect.stringMatching(/^Run the command in the server's folder/),
    });
  });
});
