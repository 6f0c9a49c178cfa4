// Sites builds: sources plus an install and build command, run in a process of their own with the
// deployment's variables and nothing of the server's environment, a time limit and a memory
// limit, the log kept; the output folder published (symlinks a build made are not followed); a
// failed build changes nothing that is served.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../harness/test-app.js';

let t: TestApp;
const SITE = 'app.localhost';
const PROBE = 'PLINTH_SITES_TEST_PROBE';

const sha1 = (data: string) => createHash('sha1').update(data).digest('hex');
const api = (method: string, url: string, payload?: unknown) =>
  t.request({ method: method as 'GET', url, headers: { 'x-api-key': t.apiKey }, payload: payload as object });
const site = (url: string) => t.request({ method: 'GET', url, headers: { host: SITE } });

/** Uploads `files` as a direct deployment and starts it; answers its id and the start answer. */
async function deployAndStart(files: Record<string, string>, start: object) {
  t.clock.advance(1000);
  const manifest = Object.entries(files).map(([path, data]) => ({
    path,
    sha: sha1(data),
    size: Buffer.byteLength(data),
  }));
  const created = await api('POST', '/api/deployments/direct', { files: manifest });
  for (const f of created.json.files) {
    await t.request({
      method: 'PUT',
      url: `/api/deployments/${created.json.id}/files/${f.fileId}/content`,
      headers: { 'x-api-key': t.apiKey, 'content-type': 'application/octet-stream' },
      payload: Buffer.from(files[f.path] as string),
    });
  }
  const started = await api('POST', `/api/deployments/${created.json.id}/start`, start);
  return { id: created.json.id as string, started };
}

async function settled(id: string): Promise<{ status: string; metadata: Record<string, any> }> {
  await expect
    .poll(async () => (await api('GET', `/api/deployments/${id}`)).json.status, { timeout: 30_000, interval: 100 })
    .toMatch(/^(READY|ERROR)$/);
  return (await api('GET', `/api/deployments/${id}`)).json;
}

const BUILD_SCRIPT = `
import { mkdirSync, writeFileSync, symlinkSync, readFileSync } from 'node:fs';
mkdirSync('out/assets', { recursive: true });
const greeting = process.env.GREETING ?? 'none';
writeFileSync('out/index.html', '<!doctype html><title>built</title><h1>' + greeting + '</h1>' + readFileSync('installed.txt', 'utf8'));
writeFileSync('out/assets/main.abc123de45.js', 'console.log(1)');
writeFileSync('out/env.txt', Object.keys(process.env).sort().join('\\n') + '\\n' + Object.values(process.env).join('\\n'));
symlinkSync('/etc/passwd', 'out/passwd');
console.log('built for', greeting);
`;

beforeAll(async () => {
  // A variable of the server's own environment: a build must never see it.
  process.env[PROBE] = 'server-secret-value';
  t = await startTestApp({ env: { SITES_BUILD_TIMEOUT_MS: '4000', SITES_BUILD_MEMORY_MB: '160' } });
});
afterAll(async () => {
  delete process.env[PROBE];
  await t?.close();
});

describe('builds', () => {
  it('installs and builds in a process of its own, with the deployment variables, and publishes the output', async () => {
    const { id, started } = await deployAndStart(
      { 'build.mjs': BUILD_SCRIPT, 'package.json': '{"name":"app","private":true}' },
      {
        projectSettings: {
          installCommand: 'echo installed > installed.txt',
          buildCommand: 'node build.mjs',
          outputDirectory: 'out',
        },
        envVars: [{ key: 'GREETING', value: 'hello from the build' }],
      },
    );
    expect(started.statusCode, started.body).toBe(200);
    expect(started.json.status).toBe('QUEUED');
    const done = await settled(id);
    expect(done.status, JSON.stringify(done.metadata)).toBe('READY');
    expect(done.metadata.build).toMatchObject({ exitCode: 0 });
    expect(done.metadata.envVarKeys).toEqual(['GREETING']);
    // The values of the variables are not kept.
    expect(JSON.stringify(done.metadata)).not.toContain('hello from the build');

    const page = await site('/');
    expect(page.body).toContain('<h1>hello from the build</h1>');
    expect(page.body).toContain('installed');
    expect((await site('/assets/main.abc123de45.js')).headers['cache-control']).toContain('immutable');
    // The sources are not served, only the output.
    expect((await site('/build.mjs')).statusCode).toBe(404);

    const logs = await api('GET', `/api/deployments/${id}/logs`);
    expect(logs.json.log).toContain('built for hello from the build');
    expect(logs.json.log).toContain('skipped passwd: a symbolic link is never published');
  });

  it('gives a build nothing of the server: no database URL, no keys, no server variables', async () => {
    const env = (await site('/env.txt')).body;
    expect(env).toContain('GREETING');
    for (const secret of [
      PROBE,
      'server-secret-value',
      'DATABASE_URL',
      'PLINTH_ENCRYPTION_KEY',
      t.databaseUrl,
      'a'.repeat(64),
    ]) {
      expect(env).not.toContain(secret);
    }
    // A symlink to a server file is never followed into the site.
    expect((await site('/passwd')).statusCode).toBe(404);
  });

  it('keeps the log of a failed build and leaves the live deployment as it was', async () => {
    const live = (await api('GET', '/api/deployments/metadata')).json.currentDeploymentId;
    const { id } = await deployAndStart(
      { 'fail.sh': 'echo compiling; echo "error: broken" >&2; exit 3' },
      {
        projectSettings: { buildCommand: 'sh fail.sh' },
      },
    );
    const done = await settled(id);
    expect(done.status).toBe('ERROR');
    expect(done.metadata.error).toContain('exit code 3');
    const logs = await api('GET', `/api/deployments/${id}/logs`);
    expect(logs.json.log).toContain('compiling');
    expect(logs.json.log).toContain('error: broken');
    expect((await api('GET', '/api/deployments/metadata')).json.currentDeploymentId).toBe(live);
    expect((await site('/')).body).toContain('<title>built</title>');
  });

  it('stops a build past its time limit, and its children with it', async () => {
    const { id } = await deployAndStart(
      { 'hang.js': 'setInterval(() => {}, 1000);' },
      {
        projectSettings: { buildCommand: 'node hang.js & node hang.js' },
      },
    );
    const done = await settled(id);
    expect(done.status).toBe('ERROR');
    expect(done.metadata.build.killedFor).toBe('timeout');
    expect((await api('GET', `/api/deployments/${id}/logs`)).json.log).toContain('ran past 4000 ms');
    // Both background processes of the group are gone.
    const left: string[] = [];
    for (const pid of await readdir('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      if (cmdline.includes('hang.js')) left.push(pid);
    }
    expect(left).toEqual([]);
  });

  it('stops a build past its memory limit', async () => {
    const { id } = await deployAndStart(
      { 'eat.js': 'const kept = []; setInterval(() => kept.push(Buffer.alloc(16 * 1024 * 1024, 1)), 5);' },
      { projectSettings: { buildCommand: 'node eat.js' } },
    );
    const done = await settled(id);
    expect(done.status).toBe('ERROR');
    expect(done.metadata.build.killedFor).toBe('memory');
  });

  it('refuses an output or root folder outside the upload before starting anything', async () => {
    for (const projectSettings of [
      { buildCommand: 'true', outputDirectory: '../..' },
      { buildCommand: 'true', rootDirectory: '/etc' },
    ]) {
      const { id, started } = await deployAndStart(
        { 'a.txt': `a${JSON.stringify(projectSettings)}` },
        { projectSettings },
      );
      expect(started.statusCode).toBe(400);
      expect((await api('GET', `/api/deployments/${id}`)).json.status).toBe('UPLOADING');
    }
  });
});
