// Fault injection on a server running its embedded PostgreSQL (its own data directory and port):
// its backends terminated and its postmaster killed -9 under load, then the server itself killed -9 and started again on the
// same data while its orphaned postmaster lingers. Nothing may hang, crash or be lost.
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive, pollUntil, startServerProcess, type ServerProcess } from '../harness/server-process.js';
import { FORMS } from './forms.js';
import { backendsTerminated, postmasterKilled } from './process-faults.js';
import {
  DEADLINES,
  EMBEDDED_RECOVERY_BOUND_MS,
  RECOVERY_BOUND_MS,
  createFixtures,
  lostWrites,
  newTally,
  startWriters,
  type Tally,
} from './workload.js';

const form = FORMS.short;
const started: ServerProcess[] = [];
let s: ServerProcess | undefined;
const acknowledged: Tally = newTally();

afterAll(async () => {
  for (const server of started.reverse()) await server.close();
});

function remember(tally: Tally) {
  for (const id of tally.acknowledgedRows) acknowledged.acknowledgedRows.add(id);
  for (const [key, sha] of tally.acknowledgedObjects) acknowledged.acknowledgedObjects.set(key, sha);
}

/** The server, on fresh data when an earlier fault killed it (that test has failed already). */
async function server(): Promise<ServerProcess> {
  if (s && !s.exit()) return s;
  s = await startServerProcess({ env: { ...DEADLINES, DB_POOL_SIZE: '8' }, readyTimeoutMs: 90_000 });
  started.push(s);
  await createFixtures(s);
  acknowledged.acknowledgedRows.clear();
  acknowledged.acknowledgedObjects.clear();
  return s;
}

describe('the embedded PostgreSQL', () => {
  it(`its backends terminated under load: the server lives, hangs nothing, recovers within ${RECOVERY_BOUND_MS} ms, loses nothing`, async () => {
    const srv = await server();
    const result = await backendsTerminated(srv, { clients: form.writers, rounds: form.terminateRounds });
    remember(result.tally);

    expect(result.exit, srv.output().slice(-3000)).toBeNull();
    expect(result.tally.hangs, JSON.stringify(result.tally.statuses())).toBe(0);
    expect(
      result.tally.outcomes.filter((o) => o.status !== 503 && (o.status < 200 || o.status >= 300)).map((o) => o.status),
    ).toEqual([]);
    expect(result.recovery).toEqual(expect.any(Number));
    expect(await lostWrites(srv, acknowledged)).toEqual({ rows: [], objects: [] });
  }, 90_000);

  it(`killed -9 under load: the server lives, hangs nothing, restarts it within ${EMBEDDED_RECOVERY_BOUND_MS} ms and loses no acknowledged write`, async () => {
    const srv = await server();
    const before = srv.postmasterPid();
    const result = await postmasterKilled(srv, {
      clients: form.writers,
      rounds: form.postmasterKills,
      boundMs: EMBEDDED_RECOVERY_BOUND_MS,
    });
    remember(result.tally);

    expect(result.exit, srv.output().slice(-3000)).toBeNull();
    expect(result.tally.hangs, JSON.stringify(result.tally.statuses())).toBe(0);
    for (const o of result.tally.outcomes.filter((x) => x.status < 200 || x.status >= 300)) {
      expect(o.status, o.body.slice(0, 300)).toBe(503);
      expect(o.headers?.get('retry-after')).toMatch(/^\d+$/);
    }
    expect(result.recoveries).toEqual(result.recoveries.map(() => expect.any(Number)));
    // A new postmaster (a supervised restart), not the killed one.
    expect(srv.postmasterPid()).not.toBe(before);
    expect(await lostWrites(srv, acknowledged)).toEqual({ rows: [], objects: [] });
  }, 120_000);

  it('a server killed -9 leaves its postmaster behind: the next start on the same data stops it safely and serves every acknowledged write', async () => {
    const srv = await server();
    const writers = startWriters(srv, { clients: 8, uploadEvery: 4, tag: 'before-crash' });
    await pollUntil('acknowledged writes', 15_000, () =>
      writers.tally.acknowledgedRows.size >= 20 ? true : undefined,
    );
    const orphan = srv.postmasterPid();
    srv.signal('SIGKILL');
    await srv.exited;
    remember(await writers.stop());
    expect(orphan !== null && isAlive(orphan)).toBe(true);

    const restartedAt = Date.now();
    const again = await startServerProcess({ reuse: srv, readyTimeoutMs: EMBEDDED_RECOVERY_BOUND_MS }).catch(
      (err: Error) => err,
    );
    if (!(again instanceof Error)) started.push(again);
    expect(again instanceof Error ? again.message : 'started').toBe('started');
    expect(Date.now() - restartedAt).toBeLessThan(EMBEDDED_RECOVERY_BOUND_MS);
    expect(await lostWrites(again as ServerProcess, acknowledged)).toEqual({ rows: [], objects: [] });
  }, 120_000);
});
