// `npm run bench:replicas`: read-your-writes on a read replica, waiting for the replica to replay
// the write (DATABASE_REPLICA_CONSISTENCY=wait) against pinning the session to the primary (pin).
// A primary and a streaming replica on loopback (test/harness/replica.ts), one compiled server
// process per mode on them; WORKERS clients each write a record and read it back at once, for
// REPLICA_BENCH_SECONDS per round, rounds alternating the modes (REPLICA_BENCH_ROUNDS pairs).
// Prints per round: write+read pairs per second, p50/p99 of the read back, and where the reads
// ran (replica, primary) with the waits; then the median ratio wait : pin.
import { startReplicatedCluster } from '../../test/harness/replica.js';
import { startServerProcess, type ServerProcess } from '../../test/harness/server-process.js';
import postgres from 'postgres';
import { registerUser, type BenchUser } from '../lib/fixtures.js';

const WORKERS = 16;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)] ?? 0;

/** The router's counters from /metrics. */
async function counters(server: ServerProcess): Promise<Record<string, number>> {
  const text = await (await fetch(`${server.baseUrl}/metrics`, { headers: { 'x-api-key': server.apiKey } })).text();
  const pick = (re: RegExp) => Number(re.exec(text)?.[1] ?? 0);
  return {
    replica: pick(/plinth_db_replica_reads_total\{[^}]*\} (\d+)/),
    primary: pick(/plinth_db_replica_primary_reads_total\{reason="read_your_writes"\} (\d+)/),
    caughtUp: pick(/plinth_db_replica_waits_total\{outcome="caught_up"\} (\d+)/),
    timedOut: pick(/plinth_db_replica_waits_total\{outcome="timed_out"\} (\d+)/),
  };
}

async function round(server: ServerProcess, users: BenchUser[], seconds: number) {
  const before = await counters(server);
  const until = performance.now() + seconds * 1000;
  const reads: number[] = [];
  let pairs = 0;
  let stale = 0;
  await Promise.all(
    Array.from({ length: WORKERS }, async (_, w) => {
      const user = users[w % users.length]!;
      const headers = { authorization: `Bearer ${user.accessToken}`, 'content-type': 'application/json' };
      while (performance.now() < until) {
        const written = await fetch(`${server.baseUrl}/api/database/records/notes`, {
          method: 'POST',
          headers: { ...headers, prefer: 'return=representation' },
          body: JSON.stringify({ body: 'x' }),
        });
        const [{ id }] = (await written.json()) as [{ id: number }];
        const started = performance.now();
        const back = await fetch(`${server.baseUrl}/api/database/records/notes?id=eq.${id}`, { headers });
        const rows = (await back.json()) as unknown[];
        reads.push(performance.now() - started);
        if (rows.length !== 1) stale++;
        pairs++;
      }
    }),
  );
  const after = await counters(server);
  const delta = (k: string) => (after[k] ?? 0) - (before[k] ?? 0);
  return {
    rate: pairs / seconds,
    p50: pct(reads, 0.5),
    p99: pct(reads, 0.99),
    stale,
    replica: delta('replica'),
    primary: delta('primary'),
    caughtUp: delta('caughtUp'),
    timedOut: delta('timedOut'),
  };
}

async function main(): Promise<void> {
  const rounds = Number(process.env.REPLICA_BENCH_ROUNDS ?? 3);
  const seconds = Number(process.env.REPLICA_BENCH_SECONDS ?? 5);
  const cluster = await startReplicatedCluster();
  const servers: Record<'wait' | 'pin', ServerProcess | undefined> = { wait: undefined, pin: undefined };
  try {
    const env = (mode: string) => ({
      DATABASE_REPLICA_URLS: cluster.replicaUrl,
      DATABASE_REPLICA_CONSISTENCY: mode,
      LOG_LEVEL: 'silent',
      PLINTH_ENCRYPTION_KEY: 'b'.repeat(64),
    });
    servers.wait = await startServerProcess({ databaseUrl: cluster.primaryUrl, env: env('wait') });
    servers.pin = await startServerProcess({ databaseUrl: cluster.primaryUrl, env: env('pin') });
    const sql = postgres(cluster.primaryUrl, { max: 1, onnotice: () => {} });
    await sql.unsafe(`create table public.notes (id bigserial primary key, owner uuid not null default auth.uid(), body text not null);
      create policy own on public.notes for all to authenticated using (owner = auth.uid()) with check (owner = auth.uid());`);
    await sql.end();
    const users: BenchUser[] = [];
    for (let i = 0; i < 4; i++)
      users.push(await registerUser(servers.wait.baseUrl, `rep${i}@bench.local`, 'bench-password-9'));
    await round(servers.wait, users, 1); // warm-up of both
    await round(servers.pin, users, 1);
    const ratios: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? (['wait', 'pin'] as const) : (['pin', 'wait'] as const);
      const results: Record<string, Awaited<ReturnType<typeof round>>> = {};
      for (const mode of order) {
        results[mode] = await round(servers[mode]!, users, seconds);
        const x = results[mode]!;
        console.log(
          `round ${r + 1} ${mode}: ${x.rate.toFixed(0)} write+read/s, read back p50 ${x.p50.toFixed(2)} ms p99 ${x.p99.toFixed(2)} ms, ` +
            `reads on replica ${x.replica} / primary ${x.primary}, waits caught up ${x.caughtUp} timed out ${x.timedOut}, stale ${x.stale}`,
        );
      }
      ratios.push(results.wait!.rate / results.pin!.rate);
    }
    console.log(`wait : pin throughput, median of ${rounds} paired rounds: ${median(ratios).toFixed(2)}`);
  } finally {
    await servers.pin?.close();
    await servers.wait?.close();
    await cluster.close();
  }
}

await main();
