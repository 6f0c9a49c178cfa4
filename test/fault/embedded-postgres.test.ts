// Fault injection on a server running its embedded PostgreSQL (its own data directory and port):
// the postmaster killed -9 under load, then the server itself killed -9 and started again on the
// same data while its orphaned postmaster lingers. Nothing may hang, crash or be lost.
import { afterAll, describe, expect, it } from 'vitest';
import { isAlive, pollUntil, startServerProcess, type ServerProcess } from '../harness/server-process.js';
import { DEADLINES, createFixtures, lostWrites, newTally, recoveryMs, startWriters, type Tally } from './workload.js';

/** Embedded PostgreSQL restarts with crash recovery: a wider bound than a lost connection. */
const EMBEDDED_RECOVERY_BOUND_MS = 30_000;

const started: ServerProcess[] = [];
let s: ServerProcess;
const acknowledged: Tally = newTally();

afterAll(async () => {
  for (const server of started.reverse()) await server.close();
});

function remember(tally: Tally) {
  for (const id of tally.acknowledgedRows) acknowledged.acknowledgedRows.add(id);
  for (const [key, sha] of tally.acknowledgedObjects) acknowledged.acknowledgedObjects.set(key, sha);
}

describe('the embedded PostgreSQL', () => {
  it('killed -9 under load: the server lives, hangs nothing, restarts it and loses no acknowledged write', async () => {
    s = await startServerProcess({ env: { ...DEADLINES, DB_POOL_SIZE: '8' }, readyTimeoutMs: 90_000 });
    started.push(s);
    await createFixtures(s);
    const writers = startWriters(s, { clients: 16, uploadEvery: 4 });
    await pollUntil('acknowledged writes', 10_000, () => (writers.tally.acknowledgedRows.size >= 50 ? true : undefined));

    const postmaster = s.postmasterPid();
    expect(postmaster).toEqual(expect.any(Number));
    process.kill(postmaster!, 'SIGKILL');
    const killedAt = Date.now();
    const recovered = await recoveryMs(s, killedAt, EMBEDDED_RECOVERY_BOUND_MS).catch((err: Error) => err.message);
    const tally = await writers.stop();
    remember(tally);

    expect(s.exit(), s.output().slice(-3000)).toBeNull();
    expect(tally.hangs, JSON.stringify(tally.statuses())).toBe(0);
    for (const o of tally.outcomes.filter((x) => x.status < 200 || x.status >= 300)) {
      expect(o.status, o.body.slice(0, 300)).toBe(503);
      expect(o.headers?.get('retry-after')).toMatch(/^\d+$/);
    }
    expect(recovered, `recovery within ${EMBEDDED_RECOVERY_BOUND_MS} ms`).toEqual(expect.any(Number));
    // A new postmaster (supervised restart), not the killed one.
    expect(s.postmasterPid()).not.toBe(postmaster);
    expect(await lostWrites(s, acknowledged)).toEqual({ rows: [], objects: [] });
  }, 120_000);

  it('a server killed -9 leaves its postmaster behind: the next start on the same data stops it safely and serves every acknowledged write', async () => {
    if (!s || s.exit()) {
      // The previous test's fault killed the server (it failed already): start from fresh data.
      s = await startServerProcess({ env: { ...DEADLINES, DB_POOL_SIZE: '8' }, readyTimeoutMs: 90_000 });
      started.push(s);
      await createFixtures(s);
      acknowledged.acknowledgedRows.clear();
      acknowledged.acknowledgedObjects.clear();
    }
    const writers = startWriters(s, { clients: 8, uploadEvery: 4, tag: 'before-crash' });
    await pollUntil('acknowledged writes', 10_000, () => (writers.tally.acknowledgedRows.size >= 20 ? true : undefined));
    const orphan = s.postmasterPid();
    s.signal('SIGKILL');
    await s.exited;
    remember(await writers.stop());
    expect(orphan !== null && isAlive(orphan)).toBe(true);

    const restartedAt = Date.now();
    const again = await startServerProcess({ reuse: s, readyTimeoutMs: EMBEDDED_RECOVERY_BOUND_MS }).catch((err: Error) => err);
    if (!(again instanceof Error)) started.push(again);
    expect(again, String(again instanceof Error ? again.message : '')).not.toBeInstanceOf(Error);
    const server = again as ServerProcess;
    expect(Date.now() - restartedAt).toBeLessThan(EMBEDDED_RECOVERY_BOUND_MS);
    expect(await lostWrites(server, acknowledged)).toEqual({ rows: [], objects: [] });
  }, 120_000);
});
