// `npm run bench`: starts an embedded PostgreSQL, Plinth (the compiled server in its own process,
// as `npm start` runs it: bench/lib/plinth.ts) and the limit server (in this process), runs every
// scenario against both, reports, and removes everything it started. Exits 0 when
// every scenario ran (missed targets are reported, not failed), non-zero when one could not run.
// BENCH_SECONDS: seconds per measured run (default 10). BENCH_SCENARIOS=a,b: only those. BENCH_RUNS=n:
// each scenario n times, the median run (by its target ratio) reported with every run's ratio.
// BENCH_ENVELOPES=1: afterwards, the records scenarios on every transaction envelope the limit
// knows (bench/lib/limit-records.ts), to see where the time between Plinth and its limit goes.
import { availableParallelism } from 'node:os';
import { startBenchDatabase, type BenchDatabase } from '../lib/environment.js';
import { registerUser, storedPasswordHash } from '../lib/fixtures.js';
import { compareEnvelopes, type EnvelopeComparison } from './envelopes.js';
import { startLimitBeside, type LimitServer } from '../lib/limit.js';
import { scopeClaims } from '../lib/limit-records.js';
import { startPlinth, type RunningPlinth } from '../lib/plinth.js';
import { captureRecordsStatements, createRecordsTable } from '../lib/records.js';
import { printReport, targetRatioOf, writeResults, type Entry } from './report.js';
import type { BenchContext, Scenario, ScenarioOutcome } from './scenario.js';
import { SCENARIOS } from './scenarios.js';

const USERS = 8;
const PASSWORD = 'bench-password-9';
/** Rows of the records table, all the bench user's. */
const RECORD_ROWS = 10_000;

function runSeconds(): number {
  const raw = process.env.BENCH_SECONDS;
  if (raw === undefined || raw === '') return 10;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 1) throw new Error(`BENCH_SECONDS must be a number ≥ 1, got "${raw}"`);
  return Math.round(seconds);
}

/** BENCH_RUNS=n: each scenario n times (default 1); its median run (by target ratio) is reported. */
function runsPerScenario(): number {
  const raw = process.env.BENCH_RUNS;
  if (raw === undefined || raw === '') return 1;
  const runs = Number(raw);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`BENCH_RUNS must be a whole number ≥ 1, got "${raw}"`);
  return runs;
}

/** A scenario run `runs` times: the run whose target ratio is the median, and every run's ratio. */
async function medianRun(scenario: Scenario, ctx: BenchContext, runs: number): Promise<Entry> {
  const outcomes: ScenarioOutcome[] = [];
  for (let i = 0; i < runs; i++) {
    if (runs > 1) console.log(`  run ${i + 1} of ${runs}`);
    const outcome = await scenario.run(ctx);
    if (outcome.plinth.rps <= 0)
      return { failed: { name: scenario.name, error: `no successful request (${outcome.plinth.failureDetail})` } };
    outcomes.push(outcome);
  }
  const ratios = outcomes.map(targetRatioOf);
  const byRatio = [...outcomes].sort((a, b) => targetRatioOf(a) - targetRatioOf(b));
  return { outcome: byRatio[Math.floor((byRatio.length - 1) / 2)]!, ratios };
}

/** BENCH_SCENARIOS=a,b: only those scenarios (default: all). */
function selectedScenarios(): typeof SCENARIOS {
  const raw = process.env.BENCH_SCENARIOS;
  if (!raw) return SCENARIOS;
  const names = raw.split(',').map((n) => n.trim());
  const unknown = names.filter((n) => !SCENARIOS.some((s) => s.name === n));
  if (unknown.length)
    throw new Error(
      `BENCH_SCENARIOS names unknown scenarios: ${unknown.join(', ')} (known: ${SCENARIOS.map((s) => s.name).join(', ')})`,
    );
  return SCENARIOS.filter((s) => names.includes(s.name));
}

async function prepare(
  db: BenchDatabase,
  plinth: RunningPlinth,
  limit: LimitServer,
  seconds: number,
): Promise<BenchContext> {
  const users = [];
  for (let i = 0; i < USERS; i++) users.push(await registerUser(plinth.url, `bench${i}@bench.local`, PASSWORD));
  const user = users[0]!;
  // The records table, and the statements Plinth runs on it, handed to the limit.
  const recordIds = await createRecordsTable(db.url, user.id, RECORD_ROWS);
  const statements = await captureRecordsStatements(db.url, plinth.config, user, recordIds[0]!);
  const [role, claims] = statements.scope.params;
  const token = JSON.parse(Buffer.from(user.accessToken.split('.')[1]!, 'base64url').toString('utf8'));
  if (role !== 'authenticated' || claims !== scopeClaims(token)) {
    throw new Error(
      `Plinth scopes the user as ${JSON.stringify(statements.scope.params)}, the limit would not: ${scopeClaims(token)}`,
    );
  }
  limit.useRecords(statements);
  return {
    plinthUrl: plinth.url,
    limitUrl: limit.url,
    databaseUrl: db.url,
    dir: db.dir,
    pgDataDir: db.pgDataDir,
    user,
    userIds: users.map((u) => u.id),
    storedHash: await storedPasswordHash(db.url, user.email),
    seconds,
    warmupSeconds: Math.min(2, Math.max(1, Math.round(seconds / 5))),
    serverPids: { [plinth.url]: plinth.pid },
    refreshTtlSeconds: plinth.config.refreshTokenTtlSeconds,
    recordIds,
    apiKey: plinth.apiKey,
    anonKey: plinth.anonKey,
    functionsRuntime: plinth.functionsRuntime,
  };
}

async function main(): Promise<number> {
  const seconds = runSeconds();
  const scenarios = selectedScenarios();
  const runs = runsPerScenario();
  const date = new Date();
  // What to stop at the end, in start order; stopped in reverse.
  const stack: (() => Promise<void>)[] = [];
  try {
    console.log(`Starting embedded PostgreSQL, Plinth and the limit server (${availableParallelism()} cores)…`);
    const db = await startBenchDatabase();
    stack.push(db.stop);
    const plinth = await startPlinth(db.url);
    stack.push(plinth.close);
    const limit: LimitServer = await startLimitBeside(db.url, plinth);
    stack.push(limit.close);
    const ctx = await prepare(db, plinth, limit, seconds);

    const entries: Entry[] = [];
    for (const scenario of scenarios) {
      console.log(`Running ${scenario.name}…`);
      try {
        entries.push(await medianRun(scenario, ctx, runs));
      } catch (err) {
        entries.push({ failed: { name: scenario.name, error: err instanceof Error ? err.message : String(err) } });
      }
    }
    // BENCH_ENVELOPES=1: the records scenarios again on every envelope the limit knows.
    let envelopes: EnvelopeComparison | undefined;
    if (process.env.BENCH_ENVELOPES === '1') {
      console.log('Comparing transaction envelopes (BENCH_ENVELOPES=1)…');
      envelopes = await compareEnvelopes(ctx);
    }
    const info = { date, seconds, warmupSeconds: ctx.warmupSeconds };
    printReport(info, entries, envelopes);
    await writeResults(info, entries, envelopes);
    console.log('\nWrote bench/RESULTS.md');
    return entries.some((e) => 'failed' in e) || envelopes?.runs.some((r) => r.error) ? 1 : 0;
  } finally {
    for (const stop of stack.reverse()) await stop().catch((e) => console.error('cleanup:', e));
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error('Benchmark could not run:', err);
    process.exit(1);
  },
);
