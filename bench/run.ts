// `npm run bench`: starts an embedded PostgreSQL, Plinth and the limit server in this process,
// runs every scenario against both, reports, and removes everything it started. Exits 0 when
// every scenario ran (missed targets are reported, not failed), non-zero when one could not run.
import { availableParallelism } from 'node:os';
import { startBenchDatabase, freePort, type BenchDatabase } from './environment.js';
import { registerUser, storedPasswordHash } from './fixtures.js';
import { startLimitServer, type LimitServer } from './limit.js';
import { startPlinth, type RunningPlinth } from './plinth.js';
import { printReport, writeResults, type Entry } from './report.js';
import { SCENARIOS, type BenchContext } from './scenarios.js';

const USERS = 8;
const PASSWORD = 'bench-password-9';

function runSeconds(): number {
  const raw = process.env.BENCH_SECONDS;
  if (raw === undefined || raw === '') return 10;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 1) throw new Error(`BENCH_SECONDS must be a number ≥ 1, got "${raw}"`);
  return Math.round(seconds);
}

async function prepare(db: BenchDatabase, plinth: RunningPlinth, limitUrl: string, seconds: number): Promise<BenchContext> {
  const users = [];
  for (let i = 0; i < USERS; i++) users.push(await registerUser(plinth.url, `bench${i}@bench.local`, PASSWORD));
  const user = users[0]!;
  return {
    plinthUrl: plinth.url,
    limitUrl,
    databaseUrl: db.url,
    dir: db.dir,
    pgDataDir: db.pgDataDir,
    user,
    userIds: users.map((u) => u.id),
    storedHash: await storedPasswordHash(db.url, user.email),
    seconds,
    warmupSeconds: Math.min(2, Math.max(1, Math.round(seconds / 5))),
    refreshTtlSeconds: plinth.deps.config.refreshTokenTtlSeconds,
  };
}

async function main(): Promise<number> {
  const seconds = runSeconds();
  const date = new Date();
  // What to stop at the end, in start order; stopped in reverse.
  const stack: (() => Promise<void>)[] = [];
  try {
    console.log(`Starting embedded PostgreSQL, Plinth and the limit server (${availableParallelism()} cores)…`);
    const db = await startBenchDatabase();
    stack.push(db.stop);
    const plinth = await startPlinth(db.url);
    stack.push(plinth.close);
    const { signingKey } = plinth.deps.keys;
    const { config } = plinth.deps;
    const limit: LimitServer = await startLimitServer({
      databaseUrl: db.url,
      port: await freePort(),
      poolSize: config.dbPoolSize,
      kid: signingKey.kid,
      privateKey: signingKey.privateKey,
      publicKey: signingKey.publicKey,
      accessTtlSeconds: config.accessTokenTtlSeconds,
      refreshTtlSeconds: config.refreshTokenTtlSeconds,
      graceSeconds: config.refreshReuseGraceSeconds,
    });
    stack.push(limit.close);
    const ctx = await prepare(db, plinth, limit.url, seconds);

    const entries: Entry[] = [];
    for (const scenario of SCENARIOS) {
      console.log(`Running ${scenario.name}…`);
      try {
        const outcome = await scenario.run(ctx);
        if (outcome.plinth.rps > 0) entries.push({ outcome });
        else entries.push({ failed: { name: scenario.name, error: `no successful request (${outcome.plinth.failureDetail})` } });
      } catch (err) {
        entries.push({ failed: { name: scenario.name, error: err instanceof Error ? err.message : String(err) } });
      }
    }
    const info = { date, seconds, warmupSeconds: ctx.warmupSeconds };
    printReport(info, entries);
    await writeResults(info, entries);
    console.log('\nWrote bench/RESULTS.md');
    return entries.some((e) => 'failed' in e) ? 1 : 0;
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
