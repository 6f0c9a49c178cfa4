// Question: does a change too small for `npm run bench` move Plinth's server CPU per request, once the VM's drift is
//   cancelled by alternating two trees?
// Last answer: 2026-11-28 (README Benchmarks, now bench/README.md): with `AB_LIMIT=1`, refresh cost 0.183 ms of
//   server CPU on Plinth against 0.147 on the limit (1.24×); without the realtime plugin, the admission door and the
//   connection timeouts 0.168 (1.18×); each of those alone within the noise.
//
// `AB_A=/path/to/other/checkout npx tsx bench/probes/ab-trees.ts`: the same scenario on two code trees at
// once (this one is B), each tree's compiled server in its own process (bench/lib/plinth.ts; built
// first when its dist/ is stale) on one database, server CPU read from each process, alternating runs (the order flips each
// round, the database is vacuumed before each run). Prints each run and the medians: requests per
// second and server CPU per request. For changes too small for `npm run bench`: on this VM the
// same code drifts by ±20% over minutes, so only interleaved pairs compare.
// AB_SCENARIO: refresh (default) or current-session; AB_ROUNDS (default 6); AB_SECONDS (default 4).
// AB_LIMIT=1: the limit's hand-written route (bench/lib/limit.ts) is a third side, in the same
// alternation: the server CPU of Plinth against the limit with sockets, rounds interleaved.
// The other tree needs its own `npm ci`; both trees use one encryption key, as servers of one deployment.
import { tmpdir } from 'node:os';
import { startBenchDatabase } from '../lib/environment.js';
import { registerUser } from '../lib/fixtures.js';
import { startLimitBeside } from '../lib/limit.js';
import { runLoad, type LoadSpec } from '../lib/load.js';
import { pidCpuSeconds, processCpuSeconds } from '../lib/cpu.js';
import { plinthStarterOf, startPlinth as startB, type RunningPlinth } from '../lib/plinth.js';
import { currentSessionLoad, refreshLoad } from '../lib/session-loads.js';
import { settleDatabase } from '../lib/settle.js';
import { median } from '../lib/median.js';

const treeA = process.env.AB_A;
if (!treeA) throw new Error('AB_A must name the other checkout (e.g. a git worktree of the commit before)');
const startA = plinthStarterOf(treeA);
const scenario = process.env.AB_SCENARIO ?? 'refresh';
const rounds = Number(process.env.AB_ROUNDS ?? 6);
const seconds = Number(process.env.AB_SECONDS ?? 4);
/** Refresh tokens per second of a run: more than two cores rotate (the limit reached 4,700/s). */
const TOKENS_PER_SECOND = 6_000;

const db = await startBenchDatabase();
const shared = { PLINTH_ENCRYPTION_KEY: 'ab'.repeat(32), ADMIN_PASSWORD: 'ab-admin-password-1' };
const trees: [string, RunningPlinth][] = [
  ['A', await startA(db.url, shared)],
  ['B', await startB(db.url, shared)],
];
const limit = process.env.AB_LIMIT === '1' ? await startLimitBeside(db.url, trees[1]![1]) : undefined;
/** Every side of the alternation, by the URL its load goes to (the limit runs in this process: no pid). */
const sides: [string, { url: string; pid?: number }][] = limit ? [...trees, ['limit', limit]] : trees;
const serverCpuSeconds = (server: { pid?: number }) =>
  server.pid === undefined ? Promise.resolve(processCpuSeconds()) : pidCpuSeconds(server.pid);
const user = await registerUser(trees[1]![1].url, 'ab@bench.local', 'bench-password-9');
const tokens = {
  databaseUrl: db.url,
  userIds: [user.id],
  ttlSeconds: trees[1]![1].config.refreshTokenTtlSeconds,
  dir: tmpdir(),
  perSecond: TOKENS_PER_SECOND,
};
const specFor = (server: { url: string }, runSeconds: number): Promise<LoadSpec> | LoadSpec =>
  scenario === 'current-session'
    ? currentSessionLoad(server.url, user.accessToken, runSeconds)
    : refreshLoad(server.url, tokens, runSeconds);

const seen = new Map<string, { rps: number[]; cpuMs: number[] }>(sides.map(([name]) => [name, { rps: [], cpuMs: [] }]));
try {
  for (const [, server] of sides) await runLoad(await specFor(server, 2)); // warm-up: JIT, prepared statements
  for (let round = 0; round < rounds; round++) {
    for (const [name, server] of round % 2 === 0 ? sides : [...sides].reverse()) {
      const spec = await specFor(server, seconds);
      await settleDatabase(db.url);
      const before = await serverCpuSeconds(server);
      const run = await runLoad(spec);
      const cpuMs = (((await serverCpuSeconds(server)) - before) * 1000) / run.ok;
      seen.get(name)!.rps.push(run.rps);
      seen.get(name)!.cpuMs.push(cpuMs);
      console.log(
        `round ${round} ${name}: ${run.rps.toFixed(0)} req/s, ${cpuMs.toFixed(3)} ms of server CPU per request, ${run.wrongStatus + run.errors} failures`,
      );
    }
  }
  for (const [name, { rps, cpuMs }] of seen)
    console.log(
      `${name}: median ${median(rps).toFixed(0)} req/s, ${median(cpuMs).toFixed(3)} ms of server CPU per request`,
    );
} finally {
  await limit?.close();
  for (const [, plinth] of trees) await plinth.close();
  await db.stop();
}
