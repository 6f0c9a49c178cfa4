// Invocations reach the Deno runtime through a Unix socket in a private directory: no function
// can touch it, and a socket that disappears (a temp cleaner) gets the runtime restarted; where
// no socket can be made, invocations go to the runtime's loopback port instead. A killed server's
// socket directory is removed by the next start.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { startFunctionsApp, type FunctionsApp } from '../../harness/functions-app.js';
import { bearer } from '../../harness/test-app.js';

let t: FunctionsApp;

beforeAll(async () => {
  t = await startFunctionsApp({ FUNCTIONS_HEALTH_INTERVAL_MS: '100' });
  await t.deploy('hello', 'export default () => new Response("hello");');
});
afterAll(async () => {
  await t?.close();
});

const invoke = (slug: string, query = '') =>
  fetch(`${t.baseUrl}/functions/${slug}${query}`, { headers: bearer(t.anonKey) });

it.skipIf(process.platform === 'win32')('a function can neither read nor remove the runtime socket', async () => {
  const socket = t.deps.runtime.socketPath;
  expect(socket).toEqual(expect.stringMatching(/\.sock$/));
  await t.deploy(
    'socket-prober',
    `export default (req) => {
      const socket = new URL(req.url).searchParams.get("socket");
      const tries = { stat: () => Deno.statSync(socket), remove: () => Deno.removeSync(socket), list: () => [...Deno.readDirSync(socket + "/..")] };
      const seen = {};
      for (const [name, attempt] of Object.entries(tries)) {
        try { attempt(); seen[name] = "allowed"; } catch (e) { seen[name] = e.name; }
      }
      return Response.json(seen);
    };`,
  );
  const res = await invoke('socket-prober', `?socket=${encodeURIComponent(socket!)}`);
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ stat: 'NotCapable', remove: 'NotCapable', list: 'NotCapable' });
  expect(await (await invoke('hello')).text()).toBe('hello');
});

it.skipIf(process.platform === 'win32')(
  'a removed socket gets the runtime restarted; with no socket to be had, invocations use the port',
  async () => {
    const socket = t.deps.runtime.socketPath!;
    const pid = t.deps.runtime.pid;
    // The directory goes, and a file in its place keeps the supervisor from making it again.
    const dir = path.dirname(socket);
    rmSync(dir, { recursive: true, force: true });
    writeFileSync(dir, '');
    await vi.waitFor(
      () => {
        expect(t.deps.runtime.pid).not.toBe(pid);
        expect(t.deps.runtime.status).toBe('running');
      },
      { timeout: 20_000, interval: 50 },
    );
    expect(t.deps.runtime.socketPath).toBeNull();
    const res = await invoke('hello');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hello');
  },
);

it.skipIf(process.platform === 'win32')('a start removes the socket directory a killed server left', async () => {
  const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
  const left = path.join(tmpdir(), `plinth-runtime-${deadPid}-killed`);
  mkdirSync(left);
  writeFileSync(path.join(left, 'r1.sock'), '');
  await t.deps.runtime.stop();
  await t.deps.runtime.start();
  expect(existsSync(left)).toBe(false);
  expect(t.deps.runtime.socketPath).toEqual(expect.stringContaining(`plinth-runtime-${process.pid}-`));
  expect(await (await invoke('hello')).text()).toBe('hello');
});
