// `npm run bench:insights`: how fast the console's charts answer with BENCH_LOG_ROWS request-log
// rows (default 10,000,000) spread over the last week. Plinth starts, the rows go into its log
// table, the rollup is reset under its advisory lock and the server's own rollup loop folds the
// week again (the time to fold is reported), the bench checks that the rollup holds every row
// (else the run fails: issue 40), then each chart route is read BENCH_READS times per range over
// HTTP (median and max), beside the same week's chart computed from the raw rows (what a chart
// without the rollup would cost).
import postgres from 'postgres';
import { startBenchDatabase } from '../lib/environment.js';
import { median } from '../lib/median.js';
import { startPlinth } from '../lib/plinth.js';

const numberFrom = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 1) throw new Error(`${name} must be a number ≥ 1`);
  return Math.round(value);
};

const DAY_MS = 86_400_000;
// The rollup's advisory lock (SQL) and its bucket widths in seconds, as src/modules/insights/
// insights.repo.ts has them (benchmarks do not import modules). Were the key to drift, the reset
// would not wait for a fold in flight, and rollupFull would fail the run.
const ROLLUP_LOCK = "hashtext('plinth.insights.rollup')";
const WIDTHS = [60, 600, 3600];
const FAMILIES = ['traffic', 'functions', 'realtime', 'auth', 'sizes'];

async function timed<T>(work: () => Promise<T>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

interface RollupFill {
  /** Log rows (and realtime messages) before the rollup's mark: what the rollup must hold. */
  rawRows: number;
  widths: { width: number; rows: number; counted: number }[];
  oldestBucket: Date;
}

/**
 * Whether the rollup holds the whole week, or throws: each width's buckets count every row before
 * the mark (the same rows the fold selects, insights.repo.ts RAW_BUCKETS), and the oldest bucket is
 * about a week old. A run that reads a partial rollup measures nothing (issue 40).
 */
async function rollupFull(sql: postgres.Sql): Promise<RollupFill> {
  const [state] = await sql<{ rolledUntil: Date }[]>`select rolled_until as "rolledUntil" from logs.rollup_state`;
  if (!state) throw new Error('invalid run: the rollup has no mark');
  const [raw] = await sql<{ n: number }[]>`
    select (select count(*) from logs.entries
             where source in ('requests', 'functions') and status is not null and ts < ${state.rolledUntil}
               and (route is null or route not like '/dashboard%'))::float8
         + (select count(*) from realtime.messages where created_at < ${state.rolledUntil})::float8 as n`;
  const widths = await sql<{ width: number; rows: number; counted: number; oldest: Date }[]>`
    select width, count(*)::float8 as rows, coalesce(sum(count), 0)::float8 as counted, min(bucket) as oldest
      from logs.insight_rollup group by width order by width`;
  const problems: string[] = [];
  for (const width of WIDTHS) {
    const w = widths.find((row) => row.width === width);
    if (!w) problems.push(`no ${width} s buckets`);
    else if (w.counted !== raw!.n) problems.push(`${width} s buckets count ${w.counted} rows of ${raw!.n}`);
  }
  const oldest = widths.find((row) => row.width === WIDTHS[0])?.oldest;
  if (!oldest || Date.now() - oldest.getTime() < 6.9 * DAY_MS)
    problems.push(
      `the oldest bucket is ${oldest ? `${((Date.now() - oldest.getTime()) / DAY_MS).toFixed(2)} days` : 'not'} old (a week expected)`,
    );
  if (problems.length > 0) throw new Error(`invalid run: the rollup is not full: ${problems.join('; ')}`);
  return {
    rawRows: raw!.n,
    widths: widths.map(({ width, rows, counted }) => ({ width, rows, counted })),
    oldestBucket: oldest!,
  };
}

async function main() {
  const rows = numberFrom('BENCH_LOG_ROWS', 10_000_000);
  const reads = numberFrom('BENCH_READS', 20);
  const db = await startBenchDatabase();
  const sql = postgres(db.url, { max: 2, onnotice: () => {} });
  try {
    const plinth = await startPlinth(db.url);
    try {
      // Daily partitions for the week behind (the writer makes today's and the days ahead).
      const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
      for (let back = 1; back <= 8; back++) {
        const day = new Date(today - back * DAY_MS);
        const name = `entries_requests_${day.toISOString().slice(0, 10).replaceAll('-', '')}`;
        await sql.unsafe(
          `create unlogged table if not exists logs."${name}" partition of logs.entries_requests
             for values from ('${day.toISOString()}') to ('${new Date(day.getTime() + DAY_MS).toISOString()}')`,
        );
      }
      console.log(`Inserting ${rows.toLocaleString('en')} request-log rows over the last week…`);
      const insertMs = await timed(() =>
        sql.unsafe(
          `insert into logs.entries (id, ts, source, level, method, route, status, duration_ms, message)
           select gen_random_uuid(), now() - random() * interval '7 days', 'requests', 'info', 'GET',
                  '/api/database/records/:table', (array[200, 200, 200, 201, 404, 500])[1 + floor(random() * 6)::int],
                  random() * 50, 'GET /api/database/records/:table'
             from generate_series(1, ${rows})`,
        ),
      );
      console.log(`  inserted in ${(insertMs / 1000).toFixed(1)} s`);

      // Rows never arrive a week late in a running project: the rollup had already marked the
      // minutes before the insert as folded. Start it over, as a project with a week of logs would
      // be. The server's rollup round may be folding right now: under the rollup's own advisory
      // lock (rollup.ts takes it per fold step) the reset waits for that step to commit, and every
      // later step starts from the empty state (without the lock, a step in flight wrote its mark
      // back and the charts read an almost empty rollup: two invalid runs, issue 40).
      await sql.begin(async (tx) => {
        await tx.unsafe(`select pg_advisory_xact_lock(${ROLLUP_LOCK})`);
        await tx`delete from logs.insight_rollup`;
        await tx`delete from logs.rollup_state`;
      });
      const resetAt = performance.now();
      // The server's rollup loop runs each minute: wait for its round to fold the whole week, up to
      // the last few minutes (the log writer's flush and a margin).
      let firstMarkAt: number | null = null;
      for (;;) {
        const [state] = await sql<{ lag: number | null }[]>`
          select extract(epoch from now() - rolled_until)::float8 as lag from logs.rollup_state`;
        if (state && firstMarkAt === null) firstMarkAt = performance.now();
        if (state?.lag !== undefined && state.lag !== null && state.lag < 15 * 60) break;
        if (performance.now() - resetAt > 30 * 60_000) throw new Error('the rollup did not catch up within 30 minutes');
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const caughtUpAt = performance.now();
      const full = await rollupFull(sql);
      const foldMs = caughtUpAt - (firstMarkAt ?? caughtUpAt);
      console.log(
        `Rollup full ${((caughtUpAt - resetAt) / 1000).toFixed(1)} s after the reset: ` +
          `${(((firstMarkAt ?? caughtUpAt) - resetAt) / 1000).toFixed(1)} s of it until the loop's round committed its first hour, ` +
          `then the fold of ${full.rawRows.toLocaleString('en')} rows in ~${(foldMs / 1000).toFixed(1)} s ` +
          `(from its first hour's commit; ${rows.toLocaleString('en')} rows inserted)`,
      );
      console.log(
        `  rollup rows per width: ${full.widths.map((w) => `${w.width} s: ${w.rows.toLocaleString('en')}`).join(', ')} ` +
          `(${full.widths.reduce((sum, w) => sum + w.rows, 0).toLocaleString('en')} in all); oldest bucket ` +
          `${((Date.now() - full.oldestBucket.getTime()) / DAY_MS).toFixed(2)} days ago`,
      );

      const headers = { 'x-api-key': plinth.apiKey };
      console.log('\nchart route                  range   median ms   max ms');
      for (const family of FAMILIES) {
        for (const range of ['hour', 'day', 'week']) {
          const times: number[] = [];
          for (let i = 0; i < reads; i++) {
            times.push(
              await timed(async () => {
                const res = await fetch(`${plinth.url}/api/insights/${family}?range=${range}`, { headers });
                if (res.status !== 200) throw new Error(`${family} ${range}: ${res.status} ${await res.text()}`);
                await res.arrayBuffer();
              }),
            );
          }
          console.log(
            `/api/insights/${family.padEnd(12)} ${range.padEnd(6)} ${median(times).toFixed(1).padStart(10)} ${Math.max(
              ...times,
            )
              .toFixed(1)
              .padStart(8)}`,
          );
        }
      }
      const rawMs = await timed(() =>
        sql.unsafe(
          `select date_bin('1 hour', ts, now() - interval '7 days') as t, status / 100 as c, count(*),
                  percentile_disc(0.95) within group (order by duration_ms)
             from logs.entries where source = 'requests' and ts >= now() - interval '7 days'
            group by 1, 2`,
        ),
      );
      console.log(`\nThe week's traffic chart from the raw rows instead (one run): ${rawMs.toFixed(0)} ms`);
    } finally {
      await plinth.close();
    }
  } finally {
    await sql.end();
    await db.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
