// Fault injection on a listening server with an external PostgreSQL: its backends terminated
// under a load of inserts and uploads, and its Deno function runtime killed while functions are
// invoked. The process must live, nothing may hang, no acknowledged write may be lost.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../harness/test-app.js';
import { isAlive, pollUntil, startServerProcess, type ServerProcess } from '../harness/server-process.js';
import {
  DEADLINES, RECOVERY_BOUND_MS, apiKeyHeaders, anonHeaders, createFixtures, lostWrites, recoveryMs, startWriters, timed, type Outcome,
} from './workload.js';

let s: ServerProcess;
let admin: postgres.Sql;

/** The server, started again if an earlier test's fault killed it (that test has failed already). */
async function server(): Promise<ServerProcess> {
  if (s && !s.exit()) return s;
  await s?.close();
  const databaseUrl = await createDatabase();
  await admin?.end();
  admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  s = await startServerProcess({ databaseUrl, env: { ...DEADLINES, DB_POOL_SIZE: '8' } });
  await createFixtures(s);
  return s;
}

beforeAll(server, 90_000);
afterAll(async () => {
  await s?.close();
  await admin?.end();
});

/** Terminates every other backend of this test's database (and only of it); returns how many. */
async function terminatePlinthBackends(): Promise<number> {
  const rows = await admin`
    select pg_terminate_backend(pid) as done from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'`;
  return rows.filter((r) => r.done).length;
}

const failuresOf = (outcomes: Outcome[]) => outcomes.filter((o) => o.status < 200 || o.status >= 300);

describe('PostgreSQL backends terminated under load', () => {
  it('keeps the process alive, hangs nothing, loses no acknowledged write, answers 503 + Retry-After meanwhile and recovers', async () => {
    const srv = await server();
    const writers = startWriters(srv, { clients: 16, uploadEvery: 4 });
    // Load first: wait until writes are being acknowledged.
    await pollUntil('acknowledged writes', 10_000, () => (writers.tally.acknowledgedRows.size >= 50 ? true : undefined));
    let terminated = 0;
    let lastFault = 0;
    for (let round = 0; round < 6 && !srv.exit(); round++) {
      terminated += await terminatePlinthBackends();
      lastFault = Date.now();
      // The next round once the writers have been through the broken connections.
      const seen = writers.tally.outcomes.length;
      await pollUntil('requests after the fault', 10_000, () => (writers.tally.outcomes.length >= seen + 32 || srv.exit() ? true : undefined));
    }
    const recovered = srv.exit() ? undefined : await recoveryMs(srv, lastFault).catch((err: Error) => err.message);
    const tally = await writers.stop();

    expect(terminated).toBeGreaterThan(0);
    expect(srv.exit(), srv.output().slice(-3000)).toBeNull();
    expect(tally.hangs, JSON.stringify(tally.statuses())).toBe(0);
    expect(tally.networkErrors, JSON.stringify(tally.statuses())).toBe(0);
    // A lost connection is the server's temporary trouble, not the client's fault nor a bug: 503.
    for (const failure of failuresOf(tally.outcomes)) {
      expect(failure.status, failure.body).toBe(503);
      expect(failure.headers?.get('retry-after'), failure.body).toMatch(/^\d+$/);
      expect(JSON.parse(failure.body)).toMatchObject({ error: 'SERVICE_UNAVAILABLE', statusCode: 503 });
    }
    expect(recovered, `recovery within ${RECOVERY_BOUND_MS} ms`).toEqual(expect.any(Number));
    expect(await lostWrites(srv, tally)).toEqual({ rows: [], objects: [] });
    expect(tally.acknowledgedRows.size).toBeGreaterThan(0);
    expect(tally.acknowledgedObjects.size).toBeGreaterThan(0);
  }, 90_000);
});

describe('the Deno function runtime killed while functions are invoked', () => {
  it('keeps the process alive, answers every invocation (2xx or 502) without a hang, and serves functions again', async () => {
    const srv = await server();
    const deploy = await fetch(`${srv.baseUrl}/api/functions`, {
      method: 'POST',
      headers: { ...apiKeyHeaders(srv), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'echo', slug: 'echo', code: 'export default () => new Response("ok");' }),
    });
    expect(deploy.status, await deploy.text()).toBe(201);
    const invoke = () => timed(`${srv.baseUrl}/functions/echo`, { method: 'POST', headers: anonHeaders(srv) });
    await pollUntil('the function answering', 30_000, async () => ((await invoke()).status === 200 ? true : undefined), 200);

    const outcomes: Outcome[] = [];
    let running = true;
    const loops = Array.from({ length: 8 }, async () => {
      while (running && !srv.exit()) outcomes.push(await invoke());
    });
    let killedAt = 0;
    for (let round = 0; round < 2; round++) {
      const deno = await pollUntil('the Deno child process', 30_000, () => srv.children().find((c) => c.command.includes('deno')));
      process.kill(deno.pid, 'SIGKILL');
      killedAt = Date.now();
      await pollUntil('the runtime restarted', RECOVERY_BOUND_MS, () =>
        srv.children().some((c) => c.command.includes('deno') && c.pid !== deno.pid) || srv.exit() ? true : undefined);
    }
    const recovered = await pollUntil('a function answering again', RECOVERY_BOUND_MS, async () =>
      srv.exit() ? -1 : (await invoke()).status === 200 ? Date.now() - killedAt : undefined);
    running = false;
    await Promise.all(loops);

    expect(srv.exit(), srv.output().slice(-3000)).toBeNull();
    expect(isAlive(srv.pid)).toBe(true);
    expect(recovered).toBeGreaterThanOrEqual(0);
    const statuses = new Set(outcomes.map((o) => o.status));
    for (const status of statuses) expect([200, 502, 503]).toContain(status);
    // The rest of the API never noticed.
    expect((await timed(`${srv.baseUrl}/api/health/ready`)).status).toBe(200);
  }, 90_000);
});
