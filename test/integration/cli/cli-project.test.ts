// The real `plinth` binary against a listening Plinth: login and config (environment wins over
// the project file), `new` and its refusals, unreachable servers, and that there is no rollback.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';
import { projectDir, runCli } from './cli-runner.js';

let t: TestApp;
let url: string;
/** A loopback port nothing listens on. */
let closedUrl: string;
const env = () => ({ PLINTH_URL: url, PLINTH_API_KEY: t.apiKey });

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  closedUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise((resolve) => probe.close(resolve));
});
afterAll(() => t.close());

describe('login and config', () => {
  it('login checks the key, stores URL and key in a file only its owner reads; the environment wins over it', async () => {
    const dir = await projectDir();
    const refused = await runCli(dir, ['login', '--url', url, '--api-key', `ik_${'0'.repeat(64)}`]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^Error: The server refused the API key \(401\).*plinth login/);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(path.join(dir, '.plinth', 'project.json'))).toBe(false);

    const ok = await runCli(dir, ['login', '--url', `${url}/`, '--api-key', t.apiKey]);
    expect(ok.code, ok.stderr).toBe(0);
    const file = path.join(dir, '.plinth', 'project.json');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ url, apiKey: t.apiKey });
    expect((await stat(file)).mode & 0o777).toBe(0o600);

    const fromFile = await runCli(dir, ['config']);
    expect(fromFile.stdout).toContain(`url: ${url}`);
    expect(fromFile.stdout).toContain('source: project file');
    expect(fromFile.stdout).not.toContain(t.apiKey);
    expect((await runCli(dir, ['db', 'migrations', 'list'])).code).toBe(0);

    const overridden = await runCli(dir, ['config'], { PLINTH_URL: closedUrl });
    expect(overridden.stdout).toContain(`url: ${closedUrl}`);
    expect(overridden.stdout).toContain('source: environment and project file');
    const unreachable = await runCli(dir, ['db', 'migrations', 'list'], { PLINTH_URL: closedUrl });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(
      /^Error: Cannot reach Plinth at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)\. Check the URL/,
    );
    const wrongKey = await runCli(dir, ['db', 'migrations', 'list'], { PLINTH_API_KEY: `ik_${'1'.repeat(64)}` });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/refused the API key/);
  });

  it('login keeps the key out of git and readable by its owner only, also over a file that was readable', async () => {
    const dir = await projectDir();
    execFileSync('git', ['init', '-q'], { cwd: dir });
    expect((await runCli(dir, ['login', '--url', url, '--api-key', t.apiKey])).code).toBe(0);
    const file = path.join(dir, '.plinth', 'project.json');
    // git ignores it: check-ignore exits 0 for an ignored path, and status lists nothing of the folder.
    execFileSync('git', ['check-ignore', '-q', '.plinth/project.json'], { cwd: dir });
    expect(
      execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: dir }).toString(),
    ).not.toMatch(/\.plinth/);

    await chmod(file, 0o644);
    const again = await runCli(dir, ['login', '--url', url, '--api-key', t.apiKey]);
    expect(again.code, again.stderr).toBe(0);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('without any configuration, commands that need the server say how to configure one', async () => {
    const res = await runCli(await projectDir(), ['db', 'migrations', 'list']);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      'Error: No Plinth server configured. Run `plinth login --url <url> --api-key <key>` or set PLINTH_URL and PLINTH_API_KEY (environment or .env), or pass --url and --api-key.\n',
    );
  });

  it('login refuses a URL that is not http(s)', async () => {
    const res = await runCli(await projectDir(), ['login', '--url', 'ftp://example.com', '--api-key', t.apiKey]);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/must be an http:\/\/ or https:\/\/ URL/);
  });
});

describe('db migrations new', () => {
  it('creates migrations/<14-digit UTC version>_<name>.sql; a second one in the same second gets a later version', async () => {
    const dir = await projectDir();
    const first = await runCli(dir, ['db', 'migrations', 'new', 'add-notes'], env());
    const second = await runCli(dir, ['db', 'migrations', 'new', 'add-tags-2'], env());
    expect(first.code, first.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    const files = (await readdir(path.join(dir, 'migrations'))).sort();
    expect(files).toHaveLength(2);
    expect(files[0]).toMatch(/^\d{14}_add-notes\.sql$/);
    expect(files[1]).toMatch(/^\d{14}_add-tags-2\.sql$/);
    expect(BigInt(files[1]!.slice(0, 14))).toBeGreaterThan(BigInt(files[0]!.slice(0, 14)));
    expect(first.stdout).toBe(`Created migrations/${files[0]}\n`);
    const year = new Date().getUTCFullYear();
    expect(Number(files[0]!.slice(0, 4))).toBeGreaterThanOrEqual(year - 1);
  });

  it('continues after the newest local version when that is ahead of the clock', async () => {
    const dir = await projectDir({ '29991231235959_future.sql': 'select 1;' });
    const res = await runCli(dir, ['db', 'migrations', 'new', 'after-future']);
    expect(res.code, res.stderr).toBe(0);
    expect(await readdir(path.join(dir, 'migrations'))).toContain('30000101000000_after-future.sql');
  });

  it.each([
    ['capitals', 'AddNotes'],
    ['underscores', 'add_notes'],
    ['spaces', 'add notes'],
    ['a dot', 'add.notes'],
  ])('refuses a name with %s', async (_label, name) => {
    const dir = await projectDir();
    const res = await runCli(dir, ['db', 'migrations', 'new', name]);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      `Error: "${name}" is not a valid migration name: use lowercase letters, digits and hyphens only (e.g. add-orders-table).\n`,
    );
    expect(existsSync(path.join(dir, 'migrations'))).toBe(false);
  });

  it.each([
    ['a name with capitals', '20260101000000_Notes.sql'],
    ['a 12-digit version', '202601010000_notes.sql'],
    ['an impossible date', '20261341000000_notes.sql'],
    ['no version', 'notes.sql'],
    ['another extension', '20260101000000_notes.txt'],
  ])('refuses to continue while migrations/ holds %s', async (_label, bad) => {
    const dir = await projectDir({ [bad]: 'select 1;', '20260101000001_fine.sql': 'select 1;' });
    const res = await runCli(dir, ['db', 'migrations', 'new', 'next-one']);
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(
      new RegExp(`^Error: Invalid migration file name in migrations/: ${bad.replace('.', '\\.')}\\. Names must be`),
    );
    expect(await readdir(path.join(dir, 'migrations'))).toHaveLength(2);
  });

  it('refuses to continue while two files share a version', async () => {
    const dir = await projectDir({ '20260101000000_one.sql': 'select 1;', '20260101000000_two.sql': 'select 2;' });
    const res = await runCli(dir, ['db', 'migrations', 'new', 'three']);
    expect(res.code).toBe(1);
    expect(res.stderr).toBe(
      'Error: Two migration files share version 20260101000000: 20260101000000_one.sql and 20260101000000_two.sql. Give one of them a new version.\n',
    );
  });

  it('ignores hidden files such as .gitkeep', async () => {
    const dir = await projectDir();
    await runCli(dir, ['db', 'migrations', 'new', 'first']);
    await writeFile(path.join(dir, 'migrations', '.gitkeep'), '');
    expect((await runCli(dir, ['db', 'migrations', 'new', 'second'])).code).toBe(0);
  });
});

describe('forward only', () => {
  it.each([['down'], ['rollback']])('there is no `%s` command', async (verb) => {
    const res = await runCli(await projectDir(), ['db', 'migrations', verb], env());
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(new RegExp(`unknown command '${verb}'`));
  });
});
