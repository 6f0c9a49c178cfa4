// The embedded PostgreSQL under the real server process: a killed postmaster is restarted and
// records reads recover; a postmaster left behind by a killed server (running, stuck shutting
// down, or a pid file naming another process) does not block the next start; SIGTERM stops both.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postgresOsUser } from '../../../src/platform/postgres-binaries.js';
import { freePort } from '../../harness/free-port.js';
import { isAlive, postmasterPid, spawnServer, pollUntil, type ServerProcess } from '../../harness/server-process.js';

let dataDir: string;
let pgPort: number;
let apiKey: string;
let server: ServerProcess | undefined;

/** Starts the server on the shared data directory and waits until it listens. */
async function start(): Promise<ServerProcess> {
  server = await spawnServer({ dataDir, env: { EMBEDDED_PG_PORT: String(pgPort), LOG_LEVEL: 'warn' } });
  await server.waitForOutput('Plinth is listening', 90_000);
  return server;
}

const readNotes = async (s: ServerProcess) => {
  try {
    // A read that takes longer than 5 s counts as not answered.
    const res = await fetch(`${s.baseUrl}/api/database/records/notes`, {
      headers: { 'x-api-key': apiKey },
      signal: AbortSignal.timeout(5_000),
    });
    return { status: res.status, body: await res.text() };
  } catch (err) {
    return { status: 0, body: String(err) };
  }
};

/** The fourth line of postmaster.pid onwards ends with the postmaster's status (ready, stopping…). */
const postmasterStatus = () =>
  readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8')
    .trim()
    .split('\n')
    .at(-1)
    ?.trim();

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'plinth-embedded-'));
  pgPort = await freePort();
  const s = await start();
  apiKey = s.printedApiKey();
  const res = await fetch(`${s.baseUrl}/api/database/advance/rawsql/unrestricted`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      query: "create table notes (id int primary key, body text); insert into notes values (1, 'kept')",
    }),
  });
  expect(res.status, await res.text()).toBe(200);
  expect(await readNotes(s)).toMatchObject({ status: 200 });
}, 120_000);
afterEach(async () => {
  await server?.close({ keepDataDir: true, stopSignal: 'SIGKILL' });
  server = undefined;
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe('embedded PostgreSQL supervision', () => {
  it('restarts a postmaster killed with SIGKILL, and records reads answer again', async () => {
    const s = server ?? (await start());
    const killed = postmasterPid(dataDir)!;
    const killedAt = Date.now();
    process.kill(killed, 'SIGKILL');
    // Backends of the killed postmaster can answer a read or two before they notice it is gone, so
    // a 200 counts only once a new postmaster runs (it cannot start while those backends live).
    await pollUntil('a new postmaster to run', 60_000, () => {
      const pid = postmasterPid(dataDir);
      return pid !== null && pid !== killed;
    });
    await pollUntil('records reads to answer again', 60_000, async () => (await readNotes(s)).status === 200);
    console.log(`recovery: records read answered 200 ${Date.now() - killedAt} ms after SIGKILL of the postmaster`);
    expect(postmasterPid(dataDir)).not.toBe(killed);
    expect(JSON.parse((await readNotes(s)).body)).toEqual([{ id: 1, body: 'kept' }]);
    expect(s.child.exitCode).toBeNull();
  }, 90_000);

  it('starts over a postmaster left running by a killed server', async () => {
    const first = server ?? (await start());
    first.child.kill('SIGKILL');
    await first.exited;
    const orphan = postmasterPid(dataDir);
    expect(orphan && isAlive(orphan)).toBe(true);
    const second = await start();
    expect(await readNotes(second)).toMatchObject({ status: 200 });
  }, 150_000);

  it('starts over a postmaster stuck shutting down (a smart shutdown waiting for a client)', async () => {
    const first = server ?? (await start());
    first.child.kill('SIGKILL');
    await first.exited;
    const password = readFileSync(path.join(dataDir, 'pg-password'), 'utf8').trim();
    const client = postgres(`postgres://postgres:${password}@127.0.0.1:${pgPort}/postgres`, {
      max: 1,
      onnotice: () => {},
    });
    try {
      await client`select 1`;
      const orphan = postmasterPid(dataDir)!;
      process.kill(orphan, 'SIGTERM');
      await pollUntil('the postmaster to be shutting down', 10_000, () => postmasterStatus() === 'stopping');
      const second = await start();
      expect(await readNotes(second)).toMatchObject({ status: 200 });
      expect(isAlive(orphan)).toBe(false);
    } finally {
      await client.end({ timeout: 0 }).catch(() => {});
    }
  }, 150_000);

  it('starts over a stale pid file that names a live process which is not PostgreSQL', async () => {
    const first = server ?? (await start());
    first.child.kill('SIGKILL');
    await first.exited;
    const orphan = postmasterPid(dataDir)!;
    process.kill(orphan, 'SIGKILL');
    await pollUntil('the postmaster to end', 10_000, () => !isAlive(orphan));
    // A pid reused by another program after a crash. PostgreSQL ignores its ancestors and
    // processes it may not signal, so this one is not an ancestor and runs as PostgreSQL's user.
    const other = spawn('sleep', ['120'], { stdio: 'ignore', ...(await postgresOsUser()) });
    try {
      const file = path.join(dataDir, 'pg', 'postmaster.pid');
      const lines = readFileSync(file, 'utf8').split('\n');
      lines[0] = String(other.pid);
      writeFileSync(file, lines.join('\n'));
      const second = await start();
      expect(await readNotes(second)).toMatchObject({ status: 200 });
      expect(isAlive(other.pid!)).toBe(true);
    } finally {
      other.kill('SIGKILL');
    }
  }, 150_000);

  it('SIGTERM stops the server and its postmaster, and exits 0', async () => {
    const s = server ?? (await start());
    const pid = postmasterPid(dataDir)!;
    s.child.kill('SIGTERM');
    expect(await s.exited).toEqual({ code: 0, signal: null });
    expect(isAlive(pid)).toBe(false);
  }, 60_000);
});
