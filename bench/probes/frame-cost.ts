// Question: how much JavaScript CPU does Plinth's request path cost above a bare handler, with sockets, PostgreSQL
//   and the load generator out of the measurement?
// Last answer: 2026-11-28 13:06–14:30: refresh 1.166× the limit's route (179 against 155 µs), 1.134× with
//   `LOGS_STORE=false`; the request frame (`GET /api/health`) 8.2 µs above a bare route.
//
// In process on purpose (bench/lib/plinth-in-process.ts): inject() measures the JavaScript alone,
// which a server in its own process behind sockets cannot show; stdout logging is off here.
// `npx tsx bench/probes/frame-cost.ts`: the JavaScript CPU a request costs Plinth against a bare handler,
// in µs per request, without sockets or a load generator in the measurement (inject(), 32 requests
// at a time, this process's user + system CPU; PostgreSQL works in its own processes and is not
// counted). Two probes:
// - frame: GET /api/health (no database work, one small object) against a bare Fastify route with
//   the same body. What remains is the request frame every route runs: the root hooks (request id,
//   deadline, access control, CORS, admission, cookies), the reply check, the request log line and
//   stored log entry, the request metrics. Variants switch the optional parts off (LOGS_STORE=false,
//   METRICS_ACCESS=off), so their shares are measured too.
// - refresh: POST /api/auth/refresh?client_type=mobile with a fresh refresh token each request,
//   against the limit's hand-written refresh route (bench/lib/limit.ts), same database, same key, and
//   Plinth with LOGS_STORE=false beside it.
// Rounds alternate the sides (the order flips each round); medians of FRAME_ROUNDS (default 7)
// rounds of FRAME_REQUESTS (default 10,000) requests, and the median of each round's ratio to the
// first side (many short rounds, e.g. 41 of 1,000, resolve more on a VM whose speed drifts; the
// ratio cancels the most for the side run next to the first). FRAME_PROBES: frame,refresh (default both).
// FRAME_A=/path/to/other/checkout: that tree's Plinth is one more side of each probe ("plinth A"),
// for A/B of a change (the other tree needs its own `npm ci`).
// FRAME_PROFILE=1: one more run of each side under the V8 sampling profiler (a sample every 50 µs), written to
// <tmpdir>/plinth-profiles/frame-<probe>-<side>.cpuprofile (bench/probes/profile.ts reads such files).
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance, type InjectOptions } from 'fastify';
import { startBenchDatabase } from '../lib/environment.js';
import { createRefreshTokens, registerUser } from '../lib/fixtures.js';
import { startLimitBeside } from '../lib/limit.js';
import { inProcessStarterOf, startPlinthInProcess as startPlinth } from '../lib/plinth-in-process.js';
import { median } from '../lib/median.js';

const rounds = Number(process.env.FRAME_ROUNDS ?? 7);
const requests = Number(process.env.FRAME_REQUESTS ?? 10_000);
const probes = (process.env.FRAME_PROBES ?? 'frame,refresh').split(',');
const profiling = process.env.FRAME_PROFILE === '1';
const BATCH = 32;

/** A bare route with the same answer as Plinth's liveness route: the baseline of the frame. */
async function bareApp(): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.get('/api/health', async () => ({
    status: 'ok',
    version: '1.0.0',
    plinthVersion: '0.1.0',
    service: 'plinth',
    timestamp: new Date().toISOString(),
  }));
  await app.ready();
  return app;
}

type Side = [name: string, app: FastifyInstance];

/** CPU µs per request of `count` requests made by `request()`, 32 at a time; each must answer 200. */
async function cpuPerRequest(app: FastifyInstance, count: number, request: () => InjectOptions): Promise<number> {
  const before = process.cpuUsage();
  for (let sent = 0; sent < count; sent += BATCH) {
    const replies = await Promise.all(Array.from({ length: BATCH }, () => app.inject(request())));
    for (const reply of replies)
      if (reply.statusCode !== 200) throw new Error(`${reply.statusCode} ${reply.body.slice(0, 300)}`);
    // A turn of the event loop between batches, as a socket server has: timers (the liveness
    // check's lag probe, the log writer's flush) run as they would.
    await new Promise(setImmediate);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

/** Alternating rounds of every side; prints each round and the medians against the first side. */
async function compare(title: string, sides: Side[], request: () => InjectOptions): Promise<void> {
  for (const [, app] of sides) await cpuPerRequest(app, requests / 4, request); // warm-up
  const runs = new Map<string, number[]>(sides.map(([name]) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? sides : [...sides].reverse();
    for (const [name, app] of order) runs.get(name)!.push(await cpuPerRequest(app, requests, request));
    console.log(
      `  round ${round + 1}: ${sides.map(([name]) => `${name} ${runs.get(name)!.at(-1)!.toFixed(1)}`).join(', ')}`,
    );
  }
  const [baseName] = sides[0]!;
  const base = median(runs.get(baseName)!);
  console.log(`${title}: CPU µs per request, medians of ${rounds} rounds of ${requests.toLocaleString('en-US')}`);
  for (const [name] of sides) {
    const values = runs.get(name)!;
    const value = median(values);
    const spread = `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}`;
    // Each round's own ratio to the base side: the VM's speed drifts over seconds, and a ratio of
    // two runs made in the same round cancels most of it.
    const ratio = median(values.map((v, round) => v / runs.get(baseName)![round]!));
    const beyond =
      name === baseName ? '' : `, ${(value - base).toFixed(1)} beyond ${baseName}; per-round ratio ${ratio.toFixed(3)}`;
    console.log(`  ${name.padEnd(14)} ${value.toFixed(1).padStart(6)} (${spread})${beyond}`);
  }
  if (profiling) for (const [name, app] of sides) await profile(`${title.split(' ')[0]}-${name}`, app, request);
}

/** One run of `app` under the sampling profiler, written where bench/probes/profile.ts writes its own. */
async function profile(label: string, app: FastifyInstance, request: () => InjectOptions): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  // A sample every 50 µs (V8's default is 1 ms, coarser than the differences looked for here).
  await session.post('Profiler.setSamplingInterval', { interval: 50 });
  await session.post('Profiler.start');
  await cpuPerRequest(app, requests, request);
  const { profile: taken } = await session.post('Profiler.stop');
  session.disconnect();
  const dir = path.join(tmpdir(), 'plinth-profiles');
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `frame-${label.replaceAll(' ', '-')}.cpuprofile`);
  await writeFile(file, JSON.stringify(taken));
  console.log(`  profile: ${file} (${requests} requests)`);
}

const db = await startBenchDatabase();
// Servers of one deployment: one encryption key.
const shared = { PLINTH_ENCRYPTION_KEY: 'fc'.repeat(32), ADMIN_PASSWORD: 'frame-admin-password-1' };
const plinth = await startPlinth(db.url, shared);
const closing: (() => Promise<unknown>)[] = [() => plinth.close()];
const treeA = process.env.FRAME_A;
const plinthA = treeA ? await (await inProcessStarterOf(treeA))(db.url, shared) : undefined;
if (plinthA) closing.push(() => plinthA.close());
/** The other tree's Plinth as a side, when FRAME_A names one. */
const sideA = (): Side[] => (plinthA ? [['plinth A', plinthA.app]] : []);
// Plinth without its stored request log (LOGS_STORE=false): a side of both probes.
const noLogStore = await startPlinth(db.url, { ...shared, LOGS_STORE: 'false' });
closing.push(() => noLogStore.close());
try {
  if (probes.includes('frame')) {
    const noMetrics = await startPlinth(db.url, { ...shared, METRICS_ACCESS: 'off' });
    const neither = await startPlinth(db.url, { ...shared, LOGS_STORE: 'false', METRICS_ACCESS: 'off' });
    closing.push(
      () => noMetrics.close(),
      () => neither.close(),
    );
    const sides: Side[] = [
      ['bare Fastify', await bareApp()],
      ['plinth', plinth.app],
      ...sideA(),
      ['no log store', noLogStore.app],
      ['no metrics', noMetrics.app],
      ['neither', neither.app],
    ];
    await compare('frame (GET /api/health)', sides, () => ({ method: 'GET', url: '/api/health' }));
  }
  if (probes.includes('refresh')) {
    const limit = await startLimitBeside(db.url, { url: plinth.url, config: plinth.deps.config });
    closing.push(() => limit.close());
    const user = await registerUser(plinth.url, 'frame@bench.local', 'bench-password-9');
    const file = path.join(tmpdir(), `frame-refresh-tokens-${process.pid}.txt`);
    // Every run sends whole batches; the warm-up a quarter of a run.
    const perRun = Math.ceil(requests / BATCH) * BATCH;
    const sides: Side[] = [['limit', limit.app], ['plinth', plinth.app], ...sideA(), ['no log store', noLogStore.app]];
    const count = sides.length * (rounds + (profiling ? 2 : 1)) * perRun;
    await createRefreshTokens(db.url, [user.id], count, plinth.deps.config.refreshTokenTtlSeconds, file);
    const tokens = (await readFile(file, 'utf8')).split('\n');
    await rm(file);
    let next = 0;
    await compare('refresh (POST /api/auth/refresh, mobile)', sides, () => ({
      method: 'POST',
      url: '/api/auth/refresh?client_type=mobile',
      payload: { refreshToken: tokens[next++] },
    }));
  }
} finally {
  for (const close of closing.reverse()) await close();
  await db.stop();
}
