// Fault injection on a listening server with an external PostgreSQL: its backends terminated
// under a load of inserts and uploads, and its Deno function runtime killed while functions are
// invoked. The process must live, nothing may hang, no acknowledged write may be lost.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../harness/test-database.js';
import { startServerProcess, type ServerProcess } from '../harness/server-process.js';
import { FORMS } from './forms.js';
import { backendsTerminated, runtimeKilled } from './process-faults.js';
import { DEADLINES, RECOVERY_BOUND_MS, createFixtures, lostWrites, timed } from './workload.js';

const form = FORMS.short;
let s: ServerProcess | undefined;

/** The server, started again if an earlier test's fault killed it (that test has failed already). */
async function server(): Promise<ServerProcess> {
  if (s && !s.exit()) return s;
  await s?.close();
  s = await startServerProcess({ databaseUrl: await createDatabase(), env: { ...DEADLINES, DB_POOL_SIZE: '8' } });
  await createFixtures(s);
  return s;
}

beforeAll(server, 90_000);
afterAll(() => s?.close());

describe('PostgreSQL backends terminated under load', () => {
  it(`keeps the process alive, hangs nothing, loses no acknowledged write, answers 503 + Retry-After meanwhile and recovers within ${RECOVERY_BOUND_MS} ms`, async () => {
    const srv = await server();
    const result = await backendsTerminated(srv, { clients: form.writers, rounds: form.terminateRounds });
    const { tally } = result;

    expect(result.terminated).toBeGreaterThan(0);
    expect(result.exit, srv.output().slice(-3000)).toBeNull();
    expect(tally.hangs, JSON.stringify(tally.statuses())).toBe(0);
    expect(tally.networkErrors, JSON.stringify(tally.statuses())).toBe(0);
    // A lost connection is the server's temporary trouble, not the client's fault nor a bug: 503.
    for (const failure of tally.outcomes.filter((o) => o.status < 200 || o.status >= 300)) {
      expect(failure.status, failure.body).toBe(503);
      expect(failure.headers?.get('retry-after'), failure.body).toMatch(/^\d+$/);
      // A write whose connection was lost after it went out may have committed: OUTCOME_UNKNOWN says so.
      expect(JSON.parse(failure.body)).toMatchObject({
        error: expect.stringMatching(/^(SERVICE_UNAVAILABLE|OUTCOME_UNKNOWN)$/),
        statusCode: 503,
      });
    }
    expect(result.recovery).toEqual(expect.any(Number));
    expect(await lostWrites(srv, tally)).toEqual({ rows: [], objects: [] });
    expect(tally.acknowledgedRows.size).toBeGreaterThan(0);
    expect(tally.acknowledgedObjects.size).toBeGreaterThan(0);
  }, 90_000);
});

describe('the Deno function runtime killed while functions are invoked', () => {
  it('keeps the process alive, answers every invocation (2xx or 502/503) without a hang, and serves functions again', async () => {
    const srv = await server();
    const result = await runtimeKilled(srv, { clients: 8, rounds: form.runtimeKills });

    expect(result.exit, srv.output().slice(-3000)).toBeNull();
    expect(result.faults).toBe(form.runtimeKills);
    expect(result.recovery).toEqual(expect.any(Number));
    for (const status of new Set(result.outcomes.map((o) => o.status))) expect([200, 502, 503]).toContain(status);
    // The rest of the API never noticed.
    expect((await timed(`${srv.baseUrl}/api/health/ready`)).status).toBe(200);
  }, 90_000);
});
