// `npm run bench:token-cache`: what the verified-token cache gains over HTTP. Two compiled servers
// (bench/lib/plinth.ts: dist/main.js with npm start's flags, each in its own process, default
// settings with request logging on) on one embedded PostgreSQL: one with the default
// ACCESS_TOKEN_CACHE_SIZE (a verified ES256 token is remembered until it expires or its session
// ends), one with ACCESS_TOKEN_CACHE_SIZE=0 (every request verifies the signature again). Both run
// throughout; the loads (autocannon in a child process, bench/lib/load.ts) alternate between them,
// the order flipped each round, so drift on a shared machine falls on both sides alike.
// Scenarios: a records read of one row by id under RLS with a user's access token (32 connections;
// one token, so the cached side always hits: the cache's best case, and that of any client that
// reuses its token until it expires), refresh (a fresh refresh token per request, 32 connections)
// and password sign-in (8 connections): these two do not read an access token, and show that the
// cache costs them nothing. Figures per side, each the median over rounds (the mean of the middle
// two for an even count): req/s, p50/p99, server CPU per request (/proc/<pid>/stat), PostgreSQL's,
// the share of the machine other processes took (noise); and the median of cached ÷ uncached
// throughput, paired by round.
// BENCH_SECONDS (default 4 per measured run, after a 1 s warm-up), BENCH_ROUNDS (2),
// BENCH_SCENARIOS=records-read-one,refresh,sign-in (default all). About 2–3 minutes with the
// defaults. Asserts nothing; prints a Markdown table.
import { randomBytes } from 'node:crypto';
import { startBenchDatabase } from '../lib/environment.js';
import { type BenchUser, registerUser } from '../lib/fixtures.js';
import type { LoadSpec } from '../lib/load.js';
import { measureLoad, type Measurement, type MeasureSettings, type SpecFor } from '../lib/measure.js';
import { startPlinth } from '../lib/plinth.js';
import { loadAverage, markdownTable } from '../lib/realtime-ceiling.js';
import { createRecordsTable, RECORDS_PATH } from '../lib/records.js';
import { refreshLoad } from '../lib/session-loads.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'records-read-one,refresh,sign-in').split(',');
const USERS = 8;
const PASSWORD = 'bench-password-9';
const RECORD_ROWS = 10_000;
/** Refresh tokens per second of warm-up: more than this machine rotates. */
const WARMUP_TOKENS_PER_SECOND = 15_000;

/** The median, the mean of the two middle values for an even count (two rounds: their mean). */
const middle = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
};

interface Side {
  name: string;
  url: string;
}

async function main() {
  console.log(`token cache: ${ROUNDS} rounds of ${SECONDS} s per side and scenario (${SCENARIOS.join(', ')})`);
  console.log(`load average before: ${loadAverage()}`);
  const db = await startBenchDatabase();
  // One key for both servers: they share the database, its secrets and its signing key.
  const key = randomBytes(32).toString('hex');
  const cached = await startPlinth(db.url, { PLINTH_ENCRYPTION_KEY: key });
  const uncached = await startPlinth(db.url, { PLINTH_ENCRYPTION_KEY: key, ACCESS_TOKEN_CACHE_SIZE: '0' });
  try {
    console.log(
      `access token cache: ${cached.config.accessTokenCacheSize} entries against ${uncached.config.accessTokenCacheSize}`,
    );
    const users: BenchUser[] = [];
    for (let i = 0; i < USERS; i++) users.push(await registerUser(cached.url, `bench${i}@bench.local`, PASSWORD));
    const user = users[0]!;
    const recordIds = await createRecordsTable(db.url, user.id, RECORD_ROWS);
    const settings: MeasureSettings = {
      seconds: SECONDS,
      warmupSeconds: 1,
      pgDataDir: db.pgDataDir,
      databaseUrl: db.url,
      serverPids: { [cached.url]: cached.pid, [uncached.url]: uncached.pid },
    };
    const specs: Record<string, (url: string) => SpecFor> = {
      'records-read-one': (url) => async (seconds) => {
        const paths = recordIds.map((id) => `${RECORDS_PATH}?id=eq.${id}`);
        return {
          url,
          method: 'GET',
          path: paths[0]!,
          paths,
          headers: { authorization: `Bearer ${user.accessToken}` },
          connections: 32,
          seconds,
          expectStatus: 200,
        } satisfies LoadSpec;
      },
      refresh: (url) => (seconds, phase, warmup) =>
        refreshLoad(
          url,
          {
            databaseUrl: db.url,
            userIds: users.map((u) => u.id),
            ttlSeconds: cached.config.refreshTokenTtlSeconds,
            dir: db.dir,
            perSecond: phase === 'warmup' ? WARMUP_TOKENS_PER_SECOND : Math.max(2 * (warmup?.rps ?? 0), 3_000),
          },
          seconds,
        ),
      'sign-in': (url) => async (seconds) => ({
        url,
        method: 'POST',
        path: '/api/auth/sessions?client_type=mobile',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: user.email, password: user.password }),
        connections: 8,
        seconds,
        expectStatus: 200,
      }),
    };
    const sides: Side[] = [
      { name: 'cache on (default)', url: cached.url },
      { name: 'cache off (0)', url: uncached.url },
    ];
    const rows: string[][] = [];
    for (const scenario of SCENARIOS) {
      const spec = specs[scenario];
      if (!spec) throw new Error(`unknown scenario ${scenario} (known: ${Object.keys(specs).join(', ')})`);
      const runs = new Map<string, Measurement[]>(sides.map((s) => [s.url, []]));
      const ratios: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
          const m = await measureLoad(spec(side.url), settings);
          runs.get(side.url)!.push(m);
          console.log(
            `${scenario} round ${round + 1} ${side.name}: ${m.rps.toFixed(0)} req/s, p50 ${m.p50} ms p99 ${m.p99} ms, ` +
              `CPU ms/request server ${m.cpu.server.toFixed(3)} PostgreSQL ${m.cpu.postgres.toFixed(3)}, ` +
              `other processes ${(m.cpu.otherShare * 100).toFixed(0)}% of the machine` +
              (m.failures ? `, failures: ${m.failureDetail}` : ''),
          );
        }
        const [on, off] = sides.map((s) => runs.get(s.url)![round]!);
        ratios.push(on!.rps / off!.rps);
      }
      for (const side of sides) {
        const ms = runs.get(side.url)!;
        rows.push([
          scenario,
          side.name,
          middle(ms.map((m) => m.rps)).toFixed(0),
          middle(ms.map((m) => m.p50)).toFixed(1),
          middle(ms.map((m) => m.p99)).toFixed(1),
          middle(ms.map((m) => m.cpu.server)).toFixed(3),
          middle(ms.map((m) => m.cpu.postgres)).toFixed(3),
          `${(middle(ms.map((m) => m.cpu.otherShare)) * 100).toFixed(0)}%`,
          side === sides[0] ? `${(middle(ratios) * 100).toFixed(0)}%` : '',
          String(ms.reduce((n, m) => n + m.failures, 0)),
        ]);
      }
    }
    console.log(`\ntoken cache, two compiled servers (default settings), ${ROUNDS} paired rounds of ${SECONDS} s`);
    console.log(
      markdownTable(
        [
          'scenario',
          'server',
          'req/s (median)',
          'p50 ms',
          'p99 ms',
          'server CPU ms/request',
          'PostgreSQL CPU ms/request',
          'other processes',
          'on ÷ off (median of rounds)',
          'failures',
        ],
        rows,
      ),
    );
    console.log(`load average after: ${loadAverage()}`);
  } finally {
    await uncached.close();
    await cached.close();
    await db.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
