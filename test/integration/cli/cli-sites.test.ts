// The real `plinth` binary deploying the site: only what changed is uploaded (with the progress
// bar past 1 MB), local secrets and dependencies are never sent, list marks the live deployment,
// rollback makes the previous one live in one command, and a failed server build prints its log.
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';
import { projectDir, runCli } from './cli-runner.js';

vi.setConfig({ testTimeout: 120_000 });

let t: TestApp;
let url: string;
const plinth = (dir: string, ...args: string[]) => {
  // Deployments one command apart are a second apart (the server's clock is the test's).
  t.clock.advance(1000);
  return runCli(dir, args, { PLINTH_URL: url, PLINTH_API_KEY: t.apiKey });
};
const site = async (p: string) => (await t.request({ method: 'GET', url: p, headers: { host: 'app.localhost' } })).body;

async function write(dir: string, files: Record<string, string | Buffer>) {
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), content);
  }
}

beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(() => t?.close());

describe('plinth sites', () => {
  let dir: string;

  it('deploy uploads the folder, skipping secrets and dependencies, and prints the live URL', async () => {
    dir = await projectDir();
    await write(dir, {
      'site/index.html': '<title>one</title>',
      'site/assets/app.1a2b3c4d5e.js': 'console.log(1)',
      'site/media/big.bin': randomBytes(1536 * 1024),
      'site/.env': 'SECRET=1',
      'site/.env.local': 'SECRET=2',
      'site/node_modules/dep/index.js': 'module.exports = 1',
    });
    const res = await plinth(dir, 'sites', 'deploy', 'site');
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('Uploading 3 of 3 files (1.5 MB)');
    expect(res.stdout).toMatch(/Deployed [0-9a-f-]{36} \(live\): http:\/\/app\.localhost:7130/);
    expect(res.stderr).toMatch(/upload \[#+\] 100%/);
    const sent = await t.deps.sql`select file_path from deployments.files order by file_path`;
    expect(sent.map((r) => r.file_path)).toEqual(['assets/app.1a2b3c4d5e.js', 'index.html', 'media/big.bin']);
    expect(await site('/')).toContain('<title>one</title>');
  });

  it('deploy again sends only what changed; list marks the live one; rollback goes back in one command', async () => {
    await write(dir, { 'site/index.html': '<title>two</title>' });
    const res = await plinth(dir, 'sites', 'deploy', 'site');
    expect(res.stdout).toContain('Uploading 1 of 3 files');
    expect(await site('/')).toContain('<title>two</title>');

    const list = await plinth(dir, 'sites', 'list');
    const lines = list.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^id\s+status\s+live\s+createdAt\s+url$/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/READY\s+\*/);

    const back = await plinth(dir, 'sites', 'rollback');
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toMatch(/^Live: [0-9a-f-]{36}/);
    expect(await site('/')).toContain('<title>one</title>');
    const json = JSON.parse((await plinth(dir, '--json', 'sites', 'list')).stdout);
    expect(json.find((d: { live: boolean }) => d.live).id).toBe(back.stdout.split(' ')[1]);
  });

  it('builds on the server with --build, and prints the log of a failed build', async () => {
    await write(dir, { 'app/make.sh': 'mkdir -p dist && echo "<title>built $WHO</title>" > dist/index.html' });
    const built = await plinth(dir, 'sites', 'deploy', 'app', '--build', 'sh make.sh', '--env', 'WHO=by-cli');
    expect(built.code, built.stderr).toBe(0);
    expect(await site('/')).toContain('<title>built by-cli</title>');

    await write(dir, { 'broken/make.sh': 'echo "cannot find module"; exit 1' });
    const failed = await plinth(dir, 'sites', 'deploy', 'broken', '--build', 'sh make.sh');
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('failed with exit code 1');
    expect(failed.stderr).toContain('cannot find module');
    expect(await site('/')).toContain('<title>built by-cli</title>');
  });
});
