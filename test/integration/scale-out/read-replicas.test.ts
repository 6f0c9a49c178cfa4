// Read replicas against real streaming replication (a primary and a replica made with
// pg_basebackup on loopback): records reads under row-level security run on the replica (seen in
// the replica's pg_stat_activity and in the metrics); a write followed at once by a read of it is
// never stale, under load, in both read-your-writes modes (wait for the replica, or pin to the
// primary); the replica stopped and started again mid-run fails no request; lag injected with
// recovery_min_apply_delay takes the replica out of the rotation, reads stay correct, and it comes
// back once it catches up.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReplicatedCluster, startReplicatedCluster } from '../../harness/replica.js';
import { bearer, startTestApp, type TestApp } from '../../harness/test-app.js';
import { signedInUser, type SignedInUser } from '../../harness/users.js';

let cluster: ReplicatedCluster;
/** Read-your-writes by waiting for the replica; and by pinning to the primary. */
let waiting: TestApp;
let pinning: TestApp;
let alice: SignedInUser;
let bob: SignedInUser;
let replicaSql: postgres.Sql;

beforeAll(async () => {
  cluster = await startReplicatedCluster();
  const env = {
    DATABASE_URL: cluster.primaryUrl,
    DATABASE_REPLICA_URLS: cluster.replicaUrl,
    DATABASE_REPLICA_MAX_LAG_MS: '500',
    DATABASE_REPLICA_CHECK_INTERVAL_MS: '50',
    DATABASE_REPLICA_WAIT_MS: '200',
  };
  waiting = await startTestApp({ env: { ...env, DATABASE_REPLICA_CONSISTENCY: 'wait' } });
  pinning = await startTestApp({ env: { ...env, DATABASE_REPLICA_CONSISTENCY: 'pin' } });
  await waiting.deps.sql.unsafe(`
    create table public.notes (
      id bigserial primary key,
      owner uuid not null default auth.uid(),
      body text not null
    );
    create policy owner_all on public.notes for all to authenticated
      using (owner = auth.uid()) with check (owner = auth.uid());
    create function public.my_note_count() returns bigint language sql stable
      as $$ select count(*) from public.notes $$;
    create function public.my_note_count_volatile() returns bigint language sql volatile
      as $$ select count(*) from public.notes $$;
  `);
  alice = await signedInUser(waiting);
  bob = await signedInUser(waiting);
  replicaSql = postgres(cluster.replicaUrl, { max: 1, onnotice: () => {} });
  await cluster.caughtUp();
  await inRotation(waiting, true);
  await inRotation(pinning, true);
}, 180_000);

afterAll(async () => {
  await replicaSql?.end({ timeout: 1 });
  await pinning?.close();
  await waiting?.close();
  await cluster?.close();
});

/** Reads lag and health now, until the replica's place in the rotation is `want` (30 s at most). */
async function inRotation(t: TestApp, want: boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    await t.deps.replicas.check();
    if (t.deps.replicas.stats().replicas[0]?.inRotation === want) return;
    if (Date.now() > deadline) throw new Error(`the replica did not ${want ? 'join' : 'leave'} the rotation`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const stats = (t: TestApp) => t.deps.replicas.stats();
const replicaReads = (t: TestApp) => stats(t).replicas[0]?.reads ?? 0;

const insert = (t: TestApp, user: SignedInUser, body: string) =>
  t.request({
    method: 'POST',
    url: '/api/database/records/notes',
    headers: { ...bearer(user.token), prefer: 'return=representation' },
    payload: { body },
  });

const read = (t: TestApp, user: SignedInUser, query = '') =>
  t.request({ method: 'GET', url: `/api/database/records/notes${query}`, headers: bearer(user.token) });

describe('reads on the replica', () => {
  it('runs records reads under row-level security on the replica', async () => {
    for (const body of ['a1', 'a2', 'a3']) expect((await insert(waiting, alice, body)).statusCode).toBe(201);
    for (const body of ['b1', 'b2']) expect((await insert(waiting, bob, body)).statusCode).toBe(201);
    await cluster.caughtUp();
    await waiting.deps.replicas.check();
    const before = replicaReads(waiting);

    const mine = await read(waiting, alice, '?order=id');
    expect(mine.statusCode).toBe(200);
    expect(mine.json.map((n: { body: string; owner: string }) => [n.body, n.owner])).toEqual([
      ['a1', alice.id],
      ['a2', alice.id],
      ['a3', alice.id],
    ]);
    const theirs = await read(waiting, bob, '?order=id');
    expect(theirs.json.map((n: { body: string }) => n.body)).toEqual(['b1', 'b2']);
    expect(replicaReads(waiting)).toBe(before + 2);

    // The replica itself serves them: its backends carry the router's application name.
    const [{ count }] = await replicaSql<[{ count: number }]>`
      select count(*)::int as count from pg_stat_activity where application_name = 'plinth-replica'`;
    expect(count).toBeGreaterThan(0);

    const metrics = await waiting.request({ method: 'GET', url: '/metrics', headers: { 'x-api-key': waiting.apiKey } });
    expect(metrics.statusCode).toBe(200);
    const served = /plinth_db_replica_reads_total\{replica="127\.0\.0\.1:\d+\/plinth"\} (\d+)/.exec(metrics.body);
    expect(Number(served?.[1])).toBeGreaterThanOrEqual(2);
    expect(metrics.body).toMatch(/plinth_db_replica_in_rotation\{replica="[^"]+"\} 1/);
    expect(metrics.body).toMatch(/plinth_db_replica_lag_seconds\{replica="[^"]+"\} /);
  });

  it('calls stable functions over GET on the replica, volatile ones and POST on the primary', async () => {
    await cluster.caughtUp();
    await waiting.deps.replicas.check();
    const call = (method: 'GET' | 'POST', fn: string) =>
      waiting.request({
        method,
        url: `/api/database/rpc/${fn}`,
        headers: bearer(alice.token),
        payload: method === 'POST' ? {} : undefined,
      });
    const mine = (await read(waiting, alice)).json.length;
    const before = replicaReads(waiting);
    const stable = await call('GET', 'my_note_count');
    expect(stable.statusCode).toBe(200);
    expect(stable.json).toBe(mine); // row-level security applies on the replica too
    expect(replicaReads(waiting)).toBe(before + 1);
    for (const [method, fn] of [
      ['GET', 'my_note_count_volatile'],
      ['POST', 'my_note_count'],
    ] as const) {
      const res = await call(method, fn);
      expect(res.statusCode).toBe(200);
      expect(res.json).toBe(mine);
    }
    expect(replicaReads(waiting)).toBe(before + 1);
  });

  it('sends a write LSN back and honours one sent to another server', async () => {
    const written = await insert(waiting, alice, 'via header');
    const lsn = written.headers['x-plinth-lsn'];
    expect(lsn).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    // The pinning server never saw this write: the header makes alice's read there see it.
    const there = await read(pinning, alice, `?id=eq.${written.json[0].id}`);
    expect(there.statusCode).toBe(200);
    expect(there.json).toHaveLength(1);
  });

  it('lets a browser page read the write LSN (CORS exposes it) and send it back', async () => {
    const origin = 'https://app.example';
    const written = await waiting.request({
      method: 'POST',
      url: '/api/database/records/notes',
      headers: { ...bearer(alice.token), origin, prefer: 'return=representation' },
      payload: { body: 'from a page' },
    });
    expect(written.statusCode).toBe(201);
    expect(written.headers['access-control-allow-origin']).toBe(origin);
    expect(written.headers['x-plinth-lsn']).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
    const exposed = String(written.headers['access-control-expose-headers'])
      .split(',')
      .map((name) => name.trim().toLowerCase());
    expect(exposed).toContain('x-plinth-lsn');
    // Sending it back is a custom request header: the preflight allows it.
    const preflight = await pinning.request({
      method: 'OPTIONS',
      url: '/api/database/records/notes',
      headers: {
        origin,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization, x-plinth-lsn',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(String(preflight.headers['access-control-allow-headers']).toLowerCase()).toContain('x-plinth-lsn');
  });
});

describe('read-your-writes under load', () => {
  const ROUNDS = 60;
  const WORKERS = 4;
  // The replica applies each commit 50 ms late: within DATABASE_REPLICA_MAX_LAG_MS, so it stays
  // in the rotation, and a read sent to it right after a write would not find the write.
  beforeAll(() => cluster.setApplyDelay(50));
  afterAll(() => cluster.setApplyDelay(0));

  /** Workers writing a note and reading it back at once, ROUNDS times each; the stale reads. */
  async function writeThenRead(t: TestApp, label: string) {
    const users = [alice, bob];
    let stale = 0;
    let failed = 0;
    let replicaMisses = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: WORKERS }, async (_, w) => {
        const user = users[w % users.length]!;
        for (let i = 0; i < ROUNDS; i++) {
          const written = await insert(t, user, `${label}-${w}-${i}`);
          if (written.statusCode !== 201) {
            failed++;
            continue;
          }
          const id = written.json[0].id as number;
          // What a read straight on the replica would have seen at this moment (not asserted: it
          // shows the replica really was behind sometimes, the case read-your-writes exists for).
          const [onReplica] = await replicaSql`select 1 from public.notes where id = ${id}`;
          if (!onReplica) replicaMisses++;
          const back = await read(t, user, `?id=eq.${id}`);
          if (back.statusCode !== 200) failed++;
          else if (back.json.length !== 1 || back.json[0].body !== `${label}-${w}-${i}`) stale++;
        }
      }),
    );
    const ms = performance.now() - started;
    return { stale, failed, replicaMisses, msPerRound: ms / (ROUNDS * WORKERS) };
  }

  for (const mode of ['wait', 'pin'] as const) {
    it(`never reads stale after a write (${mode})`, async () => {
      const t = mode === 'wait' ? waiting : pinning;
      const before = stats(t);
      const outcome = await writeThenRead(t, mode);
      const after = stats(t);
      const onReplica = (after.replicas[0]?.reads ?? 0) - (before.replicas[0]?.reads ?? 0);
      const onPrimary = after.primaryReads.readYourWrites - before.primaryReads.readYourWrites;
      console.log(
        `read-your-writes (${mode}): ${outcome.msPerRound.toFixed(2)} ms per write+read, ` +
          `${onReplica} reads on the replica, ${onPrimary} on the primary, waits ` +
          `${after.waits.caughtUp - before.waits.caughtUp} caught up / ${after.waits.timedOut - before.waits.timedOut} timed out, ` +
          `replica behind right after the write ${outcome.replicaMisses} of ${ROUNDS * WORKERS} times`,
      );
      expect(outcome).toMatchObject({ stale: 0, failed: 0 });
      expect(onReplica + onPrimary).toBe(ROUNDS * WORKERS);
      if (mode === 'wait') expect(onReplica).toBeGreaterThan(0);
      expect(after.replicas[0]?.inRotation).toBe(true);
      // The replica was often behind the write when it was read back (about half the time here).
      expect(outcome.replicaMisses).toBeGreaterThan((ROUNDS * WORKERS) / 10);
    });
  }
});

describe('replica faults', () => {
  /** Readers reading alice's notes until `stop()`; every answer's status and row count. */
  function readers(t: TestApp, expected: number) {
    let running = true;
    const outcomes: { status: number; rows: number }[] = [];
    const loops = Array.from({ length: 3 }, async () => {
      while (running) {
        const res = await read(t, alice, '?select=id');
        outcomes.push({ status: res.statusCode, rows: Array.isArray(res.json) ? res.json.length : -1 });
      }
    });
    return {
      outcomes,
      async stop() {
        running = false;
        await Promise.all(loops);
        expect(outcomes.filter((o) => o.status !== 200 || o.rows !== expected)).toEqual([]);
      },
    };
  }

  const aliceCount = async (t: TestApp) => (await read(t, alice, '?select=id')).json.length as number;

  it('fails no request while the replica is stopped and started again', async () => {
    const t = waiting;
    // The earlier tests' last writes may not have reached the replica yet: count once it has them.
    await cluster.caughtUp();
    const expected = await aliceCount(t);
    const before = stats(t);
    const run = readers(t, expected);
    await cluster.stopReplica();
    await inRotation(t, false);
    const whileDown = run.outcomes.length;
    await cluster.startReplica();
    await inRotation(t, true);
    // Reads reach the replica again before the readers stop.
    const rejoined = replicaReads(t);
    await cluster.caughtUp();
    while (replicaReads(t) === rejoined) await read(t, alice, '?select=id');
    await run.stop();
    const after = stats(t);
    expect(run.outcomes.length).toBeGreaterThan(whileDown);
    expect(
      after.fallbacks.unavailable +
        after.primaryReads.noReplica -
        before.fallbacks.unavailable -
        before.primaryReads.noReplica,
    ).toBeGreaterThan(0);
  });

  it('takes a lagging replica out of the rotation and back once it catches up', async () => {
    const t = waiting;
    await cluster.setApplyDelay(10_000);
    try {
      // WAL the replica holds back: the lag grows past DATABASE_REPLICA_MAX_LAG_MS (500 ms).
      expect((await insert(t, bob, 'while lagging')).statusCode).toBe(201);
      await inRotation(t, false);
      expect(stats(t).replicas[0]?.lagMs).toBeGreaterThan(500);
      expect(stats(t).replicas[0]?.up).toBe(true);
      const [onReplica] = await replicaSql`select 1 from public.notes where body = 'while lagging'`;
      expect(onReplica).toBeUndefined();
      // Reads stay correct: bob sees his new note (the primary answers while the replica lags).
      const bobs = await read(t, bob, '?select=body');
      expect(bobs.json.map((n: { body: string }) => n.body)).toContain('while lagging');
      const before = stats(t).primaryReads.noReplica;
      expect((await read(t, alice, '?select=id')).statusCode).toBe(200);
      expect(stats(t).primaryReads.noReplica).toBe(before + 1);
    } finally {
      await cluster.setApplyDelay(0);
    }
    await inRotation(t, true);
    const reads = replicaReads(t);
    const bobs = await read(t, bob, '?select=body');
    expect(bobs.json.map((n: { body: string }) => n.body)).toContain('while lagging');
    expect(replicaReads(t)).toBe(reads + 1);
  });
});
