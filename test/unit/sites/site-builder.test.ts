// runBuild on its own: a build stopped by the server shutting down (its whole process group goes),
// the exit code of a failing step, and the environment holding only what the deployment gave.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { runBuild } from '../../../src/modules/sites/site-builder.js';

// The PATH builds get, as the server configures it from its own environment.
const buildPath = loadConfig(process.env).sites.buildPath;
const scratch = () => mkdtemp(path.join(tmpdir(), 'plinth-build-unit-'));
const base = async () => {
  const dir = await scratch();
  return { cwd: dir, home: dir, envVars: [], timeoutMs: 30_000, memoryMb: 512, path: buildPath };
};

describe('runBuild', () => {
  it('stops the build when the server shuts down', async () => {
    const stop = new AbortController();
    const running = runBuild({
      ...(await base()),
      buildCommand: 'echo started; node -e "setInterval(() => {}, 1000)"',
      signal: stop.signal,
    });
    stop.abort();
    const outcome = await running;
    expect(outcome).toMatchObject({ ok: false, killedFor: 'shutdown' });
    expect(outcome.log).toContain('the server shut down');
  });

  it('runs install then build, stops at the first failing step, and reports its exit code', async () => {
    const outcome = await runBuild({
      ...(await base()),
      installCommand: 'echo one; exit 7',
      buildCommand: 'echo never',
    });
    expect(outcome).toMatchObject({ ok: false, exitCode: 7 });
    expect(outcome.killedFor).toBeUndefined();
    expect(outcome.log).toContain('one');
    expect(outcome.log).not.toContain('\nnever');
  });

  it('gives the build PATH, HOME and its own variables only', async () => {
    const outcome = await runBuild({
      ...(await base()),
      buildCommand: 'env',
      envVars: [{ key: 'MINE', value: 'yes' }],
    });
    expect(outcome.ok).toBe(true);
    const names = outcome.log
      .split('\n')
      .slice(1)
      .filter((l) => l.includes('='))
      .map((l) => l.split('=')[0])
      .filter((n) => n !== 'PWD' && n !== 'SHLVL' && n !== '_' && n !== 'OLDPWD');
    expect(names.sort()).toEqual(['CI', 'HOME', 'LANG', 'MINE', 'NODE_OPTIONS', 'PATH', 'TMPDIR']);
  });
});
