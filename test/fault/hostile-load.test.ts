// Fault injection from the public side with only the anon key (or no key): deeply nested JSON
// bodies, floods of pathological regex filters, floods of idle sockets past the open-file limit.
// The process must live, normal requests beside them must be answered within a stated bound.
import { afterAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../harness/test-database.js';
import { startServerProcess, type ServerProcess } from '../harness/server-process.js';
import { FLOOD_FILE_LIMIT, FLOOD_MAX_CONNECTIONS, FLOOD_POOL, FORMS, REGEX_REPEATS } from './forms.js';
import { connectionFlood, hostileBodies, regexFlood } from './public-faults.js';
import { DEADLINES, HANG_MS, RECOVERY_BOUND_MS, createFixtures, insertRow, percentile, timed } from './workload.js';

const form = FORMS.short;
let s: ServerProcess | undefined;
afterAll(() => s?.close());

/** The server; started again when an earlier fault killed or wedged it (that test failed already). */
async function server(): Promise<ServerProcess> {
  if (s && !s.exit() && (await timed(`${s.baseUrl}/api/health/ready`, {}, 5_000)).status === 200) return s;
  await s?.close();
  s = await startServerProcess({
    databaseUrl: await createDatabase(),
    env: {
      ...DEADLINES,
      DB_POOL_SIZE: String(FLOOD_POOL),
      DB_POOL_QUEUE_MAX: '1000',
      MAX_CONNECTIONS: String(FLOOD_MAX_CONNECTIONS),
    },
    fileLimit: FLOOD_FILE_LIMIT,
  });
  await createFixtures(s);
  return s;
}

describe('deeply nested JSON bodies sent with the anon key', () => {
  it('answers each with a clear 400 while normal requests beside them keep working; nothing freezes', async () => {
    const srv = await server();
    const result = await hostileBodies(srv, { rounds: form.hostileRounds, depth: 5000 });

    expect(result.exit, srv.output().slice(-3000)).toBeNull();
    expect(
      result.normal.filter((o) => o.status < 200 || o.status >= 300).map((o) => `${o.status} ${o.body.slice(0, 200)}`),
    ).toEqual([]);
    for (const o of result.hostile) {
      expect(o.status, o.body.slice(0, 300)).toBe(400);
      expect(JSON.parse(o.body)).toMatchObject({ statusCode: 400, message: expect.any(String) });
    }
    // Database-backed routes still answer afterwards, and readiness tells the truth.
    expect((await insertRow(srv, `after-hostile-${Date.now()}`)).status).toBe(201);
    expect((await timed(`${srv.baseUrl}/api/health/ready`)).status).toBe(200);
  }, 90_000);
});

/** A normal read waits at most for the flood ahead of it in the pool queue to hit its timeout. */
const READ_BOUND_MS = Number(DEADLINES.ANON_STATEMENT_TIMEOUT_MS) * (form.regexFlooders / FLOOD_POOL + 1) + 2_000;

describe('a flood of pathological regex filters from anon', () => {
  it(`ends each at the anon statement timeout (504) or anon's share (503) and keeps every signed-in read under ${READ_BOUND_MS} ms`, async () => {
    const srv = await server();
    // The regex is compiled only when a row is tested against it: with an empty table (a server
    // started afresh for this test) every flood request would answer 200 [] at once.
    expect((await insertRow(srv, `regex-target-${Date.now()}`)).status).toBe(201);
    const result = await regexFlood(srv, {
      flooders: form.regexFlooders,
      windowMs: form.regexWindowMs,
      repeats: REGEX_REPEATS,
    });

    expect(result.exit, srv.output().slice(-3000)).toBeNull();
    expect(result.during.map((o) => o.status).filter((status) => status !== 200)).toEqual([]);
    expect(
      Math.max(...result.during.map((o) => o.ms)),
      `unloaded p50 ${percentile(result.unloaded, 50)} ms`,
    ).toBeLessThan(READ_BOUND_MS);
    expect(result.flood.length).toBeGreaterThan(0);
    for (const o of result.flood) {
      // Stopped by the statement timeout (504, records error shape), refused up front (400), or
      // refused past anon's share of the pool (503).
      expect([400, 503, 504], o.body.slice(0, 300)).toContain(o.status);
      expect(JSON.parse(o.body)).toMatchObject({ statusCode: o.status, message: expect.any(String) });
    }
  }, 90_000);
});

describe(`a flood of idle connections past the open-file limit (${FLOOD_FILE_LIMIT})`, () => {
  it(`keeps the process alive and serving established clients under ${HANG_MS} ms, restarts a killed runtime, takes new clients within ${RECOVERY_BOUND_MS} ms`, async () => {
    const srv = await server();
    const result = await connectionFlood(srv, { sockets: form.floodSockets, windowMs: form.floodWindowMs });

    expect(result.exit, srv.output().slice(-3000)).toBeNull();
    expect(result.during.filter((o) => o.status !== 200).map((o) => `${o.status} ${o.body.slice(0, 200)}`)).toEqual([]);
    expect(
      Math.max(...result.during.map((o) => o.ms)),
      `unloaded p50 ${percentile(result.unloaded, 50)} ms`,
    ).toBeLessThan(HANG_MS);
    expect(result.recovery).toEqual(expect.any(Number));
    expect(result.runtimeBack).toEqual(expect.any(Number));
  }, 90_000);
});
