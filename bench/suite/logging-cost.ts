// `npm run bench:logs`: what storing request logs costs. Two Plinth servers on one database, one
// storing logs and one not (LOGS_STORE=false), driven alternately with the records read-by-id load
// (interleaved rounds, medians reported), then search latency over a million stored entries.
// BENCH_SECONDS: seconds per measured run (default 5); BENCH_ROUNDS: A/B rounds (default 5);
// BENCH_RATE: requests/s of an open-loop load (both sides do the same work; default: as fast as
// they answer). Per round and side: CPU per request of this process (the servers) and of
// PostgreSQL, this process's GC pauses and the time requests waited for a pool connection.
// BENCH_SEARCH=false skips the search latencies. LOGS_* in the environment configure the storing
// server's writer (e.g. LOGS_BATCH_SIZE).
// In process (bench/lib/plinth-in-process.ts, stdout logging off on both sides): it times the
// servers' pool guards, reads this process's GC pauses and flushes the log store directly, which
// a server in its own process does not let it do. Its figures are in-process ones.
import { randomBytes } from 'node:crypto';
import { PerformanceObserver } from 'node:perf_hooks';
import postgres from 'postgres';
import { startBenchDatabase } from '../lib/environment.js';
import { registerUser } from '../lib/fixtures.js';
import { failuresOf, runLoad, startLoadGenerator } from '../lib/load.js';
import { cpuShare, type Measurement, type MeasureSettings, type SpecFor, withCpu } from '../lib/measure.js';
import {
  type InProcessPlinth as RunningPlinth,
  startPlinthInProcess as startPlinth,
} from '../lib/plinth-in-process.js';
import { guardOf } from '../../src/core/db.js';
import { createRecordsTable } from '../lib/records.js';
import type { BenchContext } from './scenario.js';
import { recordsSpec } from './scenarios.js';

const RECORD_ROWS = 10_000;
const SEARCH_ROWS = 1_000_000;
/** A round counts as quiet when processes outside the benchmark took less of the machine than this. */
const QUIET_SHARE = 0.15;

const numberFrom = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 1) throw new Error(`${name} must be a number ≥ 1`);
  return Math.round(value);
};

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/** One measured run of a side, per successful request: CPU by process, GC pauses, pool waits. */
interface Run {
  rps: number;
  failures: number;
  cpu: Measurement['cpu'];
  /** This process's GC pauses, ms per request. */
  gcMs: number;
  /** Time requests waited for a pool connection (the guard's permit, then the driver's), ms per request. */
  poolWaitMs: number;
}

interface Side {
  name: string;
  plinth: RunningPlinth;
  /** Pool-wait ms so far. */
  waited: () => number;
  runs: Run[];
}

/** GC pause ms of this process so far. */
let gcPauseMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcPauseMs += entry.duration;
}).observe({ entryTypes: ['gc'] });

/** Counts the time the server's requests wait for a connection: its pool guard's permit, then the driver's reserve. */
function timePoolWaits(plinth: RunningPlinth): () => number {
  let waitedMs = 0;
  const timed =
    <T>(wait: () => Promise<T>) =>
    async () => {
      const started = performance.now();
      try {
        return await wait();
      } finally {
        waitedMs += performance.now() - started;
      }
    };
  const { sql } = plinth.deps;
  const guard = guardOf(sql);
  const acquire = guard.acquire.bind(guard);
  guard.acquire = (deadline) => timed(() => acquire(deadline))();
  sql.reserve = timed(sql.reserve.bind(sql));
  return () => waitedMs;
}

/** A warm-up run, then the measured run with its CPU, GC pauses and pool waits per request. */
async function measureSide(specFor: SpecFor, settings: MeasureSettings, side: Side): Promise<Run> {
  const warmup = await runLoad(await specFor(settings.warmupSeconds, 'warmup'));
  const spec = await specFor(settings.seconds, 'run', warmup);
  const generator = await startLoadGenerator();
  const gcBefore = gcPauseMs;
  const waitedBefore = side.waited();
  const { value: run, used } = await withCpu(settings.pgDataDir, () => generator.run(spec));
  return {
    rps: run.rps,
    failures: failuresOf(warmup) + failuresOf(run),
    cpu: cpuShare(used, run.ok, run.seconds, run.cpuSeconds),
    gcMs: (gcPauseMs - gcBefore) / run.ok,
    poolWaitMs: (side.waited() - waitedBefore) / run.ok,
  };
}

const cpuPerRequest = (m: Run) => m.cpu.server + m.cpu.postgres;

function summary(side: Side) {
  const rps = median(side.runs.map((m) => m.rps));
  return {
    rps,
    server: median(side.runs.map((m) => m.cpu.server)),
    postgres: median(side.runs.map((m) => m.cpu.postgres)),
    cpu: median(side.runs.map(cpuPerRequest)),
    gc: median(side.runs.map((m) => m.gcMs)),
    poolWait: median(side.runs.map((m) => m.poolWaitMs)),
    failures: side.runs.reduce((n, m) => n + m.failures, 0),
  };
}

const range = (values: number[]) => `${Math.min(...values).toFixed(3)}–${Math.max(...values).toFixed(3)}`;

/** Milliseconds one search takes through the admin route (median of 5, after one warm-up). */
async function timeSearch(url: string, apiKey: string, query: string): Promise<{ ms: number; rows: number }> {
  const once = async () => {
    const started = performance.now();
    const res = await fetch(`${url}/api/logs/search?${query}`, { headers: { 'x-api-key': apiKey } });
    const rows = ((await res.json()) as unknown[]).length;
    if (res.status >= 300 && res.status !== 206) throw new Error(`search ${query} answered ${res.status}`);
    return { ms: performance.now() - started, rows };
  };
  await once();
  const runs = [];
  for (let i = 0; i < 5; i++) runs.push(await once());
  return { ms: median(runs.map((r) => r.ms)), rows: runs[0]!.rows };
}

/** How often autovacuum vacuumed and analyzed the log partitions (their PostgreSQL CPU counts in the rounds). */
async function autovacuumOfLogs(url: string): Promise<string> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql.unsafe<{ rows: string; vacuums: string; analyzes: string }[]>(
      `select sum(n_tup_ins) as rows, sum(autovacuum_count) as vacuums, sum(autoanalyze_count) as analyzes
       from pg_stat_user_tables where schemaname = 'logs' and relname like 'entries%'`,
    );
    return `log partitions: ${row?.rows} rows stored, ${row?.vacuums} autovacuums, ${row?.analyzes} autoanalyzes`;
  } finally {
    await sql.end();
  }
}

/** Search latency over a million entries of today, spread over the last hours. */
async function measureSearch(url: string, storing: RunningPlinth): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const started = performance.now();
    await sql.unsafe(`
      insert into logs.entries (id, ts, source, level, method, route, status, duration_ms, principal, user_id, ip,
        request_id, slug, message, details)
      select gen_random_uuid(), now() - (i * interval '10 ms'), 'requests',
        case when i % 100 = 0 then 'error' else 'info' end, 'GET', '/api/database/records/:table',
        case when i % 100 = 0 then 500 else 200 end, 1.5, 'user', null, '127.0.0.1', 'req-bench-' || i, null,
        'GET /api/database/records/:table ' || case when i % 100 = 0 then 500 else 200 end, null
      from generate_series(1, ${SEARCH_ROWS}) i`);
    await sql.unsafe('analyze logs.entries_requests');
    console.log(
      `\nsearch over ${SEARCH_ROWS.toLocaleString('en-US')} more entries (inserted in ${((performance.now() - started) / 1000).toFixed(1)} s), median of 5:`,
    );
  } finally {
    await sql.end();
  }
  const apiKey = storing.keys.apiKey;
  for (const query of [
    'source=requests&limit=50',
    'request_id=req-bench-654321',
    'status=500&limit=50',
    'level=error&limit=50',
    'q=nothing-matches-this&limit=50',
    `source=requests&start_date=${new Date(Date.now() - 60_000).toISOString()}&limit=50`,
  ]) {
    const { ms, rows } = await timeSearch(storing.url, apiKey, query);
    console.log(`  ${query.padEnd(60)} ${ms.toFixed(1).padStart(8)} ms  (${rows} rows)`);
  }
}

async function main() {
  const seconds = numberFrom('BENCH_SECONDS', 5);
  const rounds = numberFrom('BENCH_ROUNDS', 5);
  const stack: (() => Promise<void>)[] = [];
  try {
    const db = await startBenchDatabase();
    stack.push(db.stop);
    // One encryption key, so both servers read the same platform keys and accept the same tokens.
    const shared = { PLINTH_ENCRYPTION_KEY: randomBytes(32).toString('hex') };
    const writerSettings = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => name.startsWith('LOGS_') && name !== 'LOGS_STORE'),
    ) as Record<string, string>;
    const storing = await startPlinth(db.url, { ...shared, ...writerSettings, LOGS_STORE: 'true' });
    stack.push(storing.close);
    const notStoring = await startPlinth(db.url, { ...shared, LOGS_STORE: 'false' });
    stack.push(notStoring.close);

    const user = await registerUser(storing.url, 'bench@bench.local', 'bench-password-9');
    const recordIds = await createRecordsTable(db.url, user.id, RECORD_ROWS);
    const settings = { seconds, warmupSeconds: 1, pgDataDir: db.pgDataDir, databaseUrl: db.url };
    const ctx = { ...settings, user, recordIds } as unknown as BenchContext;

    const rate = process.env.BENCH_RATE ? numberFrom('BENCH_RATE', 1) : undefined;
    const load = (plinth: RunningPlinth): SpecFor => {
      const specFor = recordsSpec(ctx, 'records-read-one', plinth.url);
      return async (...args) => ({ ...(await specFor(...args)), ...(rate ? { overallRate: rate } : {}) });
    };
    const sides: Side[] = [
      { name: 'logs stored', plinth: storing, waited: timePoolWaits(storing), runs: [] },
      { name: 'LOGS_STORE=false', plinth: notStoring, waited: timePoolWaits(notStoring), runs: [] },
    ];
    // One unrecorded round first: the first runs after start-up pay for the JIT and would count
    // against whichever side went first.
    for (const side of sides) await measureSide(load(side.plinth), settings, side);
    await storing.app.logs?.flush();
    for (let round = 0; round < rounds; round++) {
      // Alternate which side goes first, so a trend in the machine's load hits both alike.
      const order = round % 2 ? [...sides].reverse() : sides;
      for (const side of order) {
        const m = await measureSide(load(side.plinth), settings, side);
        await storing.app.logs?.flush();
        side.runs.push(m);
        console.log(
          `round ${round + 1} ${side.name.padEnd(17)} ${m.rps.toFixed(0).padStart(6)} req/s  server ${m.cpu.server.toFixed(3)} ms  postgres ${m.cpu.postgres.toFixed(3)} ms  GC ${m.gcMs.toFixed(3)} ms  pool wait ${m.poolWaitMs.toFixed(3)} ms  other ${(m.cpu.otherShare * 100).toFixed(0)}%`,
        );
      }
    }
    const [on, off] = sides.map(summary) as [ReturnType<typeof summary>, ReturnType<typeof summary>];
    console.log(
      `\nrecords-read-one, medians of ${rounds} interleaved ${seconds} s runs (32 connections${rate ? `, ${rate} req/s open loop` : ''}; ranges in brackets):`,
    );
    for (const [side, s] of [
      [sides[0]!, on],
      [sides[1]!, off],
    ] as const) {
      const runs = side.runs;
      console.log(
        `  ${side.name.padEnd(17)} ${s.rps.toFixed(0).padStart(6)} req/s  per request: server ${s.server.toFixed(3)} ms [${range(runs.map((m) => m.cpu.server))}], postgres ${s.postgres.toFixed(3)} ms [${range(runs.map((m) => m.cpu.postgres))}], GC ${s.gc.toFixed(3)} ms, pool wait ${s.poolWait.toFixed(3)} ms  failures ${s.failures}`,
      );
    }
    console.log(
      `  throughput cost ${((1 - on.rps / off.rps) * 100).toFixed(1)} %; CPU cost ${((on.cpu / off.cpu - 1) * 100).toFixed(1)} % (server ${((on.server / off.server - 1) * 100).toFixed(1)} %, postgres ${((on.postgres / off.postgres - 1) * 100).toFixed(1)} %)`,
    );
    // Each round's two runs back to back saw nearly the same machine: their ratio cancels the
    // slower swings of other load that the medians of each side keep.
    const [stored, notStored] = sides as [Side, Side];
    const more = (a: number, b: number) => a / b - 1;
    const pairedCosts = (label: string, rounds: number[]) => {
      if (rounds.length === 0) return console.log(`  ${label}: none`);
      const paired = (of: (m: Run) => number, cost: (on: number, off: number) => number) => {
        const costs = rounds.map((i) => cost(of(stored.runs[i]!), of(notStored.runs[i]!)) * 100);
        return `${median(costs).toFixed(1)} % [${Math.min(...costs).toFixed(1)}, ${Math.max(...costs).toFixed(1)}]`;
      };
      console.log(
        `  ${label} (median [range]): throughput cost ${paired(
          (m) => m.rps,
          (a, b) => 1 - a / b,
        )}; CPU cost ${paired(cpuPerRequest, more)}, server ${paired((m) => m.cpu.server, more)}, postgres ${paired((m) => m.cpu.postgres, more)}`,
      );
    };
    const all = stored.runs.map((_, i) => i);
    pairedCosts(`paired by round, ${all.length} rounds`, all);
    // Rounds where processes outside the benchmark took little of the machine during both runs.
    const quiet = all.filter(
      (i) => Math.max(stored.runs[i]!.cpu.otherShare, notStored.runs[i]!.cpu.otherShare) < QUIET_SHARE,
    );
    pairedCosts(`quiet rounds (others < ${QUIET_SHARE * 100} % of the CPU), ${quiet.length}`, quiet);
    console.log(`  dropped entries: ${storing.app.logs?.droppedCount()}`);
    console.log(`  ${await autovacuumOfLogs(db.url)}`);

    if (process.env.BENCH_SEARCH !== 'false') await measureSearch(db.url, storing);
  } finally {
    for (const stop of stack.reverse()) await stop().catch((e) => console.error('cleanup:', e));
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error('Benchmark could not run:', err);
    process.exit(1);
  },
);
