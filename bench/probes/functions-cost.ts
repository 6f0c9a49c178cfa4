// Question: where does Plinth's share of a function invocation's CPU go, and what does the cheapest Node proxy in
//   front of Deno cost on the same machine?
// Last answer: 2026-11-28 14:20: Plinth 0.064 server + 0.124 Deno + 0.029 load ms per request = 53% of direct if
//   CPU-bound; a bare Node proxy 64%: the 65% target sits at the hop's own floor.
//
// In process on purpose (bench/lib/plinth-in-process.ts): it switches the server's runtime client
// between the runtime's socket and its port, and puts a bare proxy on the same runtime client,
// which only a server in this process allows; stdout logging is off here.
// `npx tsx bench/probes/functions-cost.ts`: the CPU a function invocation costs, per request, through
// Plinth (to the runtime's Unix socket, and as before it, to its port), through a bare Node proxy
// (bench/lib/bare-proxy.ts, socket and port: the floor for any Node proxy) and directly on the Deno
// runtime, in alternating rounds after a warm-up round (CPU time,
// not throughput, so a shared machine skews it less). Prints the median ms per request of the
// server (this process) and the runtime, each split into user and system time, and of the load
// generator, with the ratio to direct that CPU-bound cores would give (direct's CPU per request
// over Plinth's). FN_COST_ROUNDS (default 5), FN_COST_SECONDS (3), FN_COST_CONNECTIONS (32),
// FN_COST_RATE (requests/s, open loop; default 0: closed loop). With BENCH_DATABASE_URL (a
// PostgreSQL server) the run makes a database of its own there instead of an embedded PostgreSQL.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import postgres from 'postgres';
import { startBareProxy } from '../lib/bare-proxy.js';
import { startBenchDatabase } from '../lib/environment.js';
import { deployTrivialFunction, TRIVIAL_FUNCTION } from '../suite/functions.js';
import { failuresOf, runLoad, startLoadGenerator, type LoadSpec } from '../lib/load.js';
import type { Deps } from '../../src/deps.js';
import { startPlinthInProcess as startPlinth } from '../lib/plinth-in-process.js';
import { median } from '../lib/median.js';

const ROUNDS = Number(process.env.FN_COST_ROUNDS ?? 5);
const SECONDS = Number(process.env.FN_COST_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.FN_COST_CONNECTIONS ?? 32);
/** Requests per second across all connections (open loop), or 0: as fast as answers come. */
const RATE = Number(process.env.FN_COST_RATE ?? 0);

/** A fresh database on BENCH_DATABASE_URL's server, or an embedded PostgreSQL. */
async function benchDatabase(): Promise<{ url: string; pgDataDir: string; stop(): Promise<void> }> {
  const server = process.env.BENCH_DATABASE_URL;
  if (!server) return startBenchDatabase();
  const name = `plinth_fncost_${randomBytes(4).toString('hex')}`;
  const admin = postgres(server, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    pgDataDir: '',
    async stop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** CPU seconds (user, system) of a process: this one, or another from /proc/<pid>/stat. */
async function cpuOf(pid: number | 'self'): Promise<{ user: number; sys: number }> {
  if (pid === 'self') {
    const { user, system } = process.cpuUsage();
    return { user: user / 1e6, sys: system / 1e6 };
  }
  const text = await readFile(`/proc/${pid}/stat`, 'utf8');
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { user: Number(f[11]) / 100, sys: Number(f[12]) / 100 };
}

/** CPU ms per request of one measured run, by process, user + system. */
interface RunCost {
  server: { user: number; sys: number };
  deno: { user: number; sys: number };
  load: number;
  rps: number;
}
const sum = (c: { user: number; sys: number }) => c.user + c.sys;
const totalOf = (c: RunCost) => sum(c.server) + sum(c.deno) + c.load;

async function measure(spec: LoadSpec, denoPid: number): Promise<RunCost> {
  await runLoad({ ...spec, seconds: 1 });
  const generator = await startLoadGenerator();
  const [server0, deno0] = [await cpuOf('self'), await cpuOf(denoPid)];
  const run = await generator.run(spec);
  const [server1, deno1] = [await cpuOf('self'), await cpuOf(denoPid)];
  if (failuresOf(run))
    throw new Error(`${spec.url}${spec.path}: ${run.wrongStatus} wrong answers, ${run.errors} errors`);
  const per = (a: number, b: number) => ((b - a) * 1000) / run.ok;
  return {
    server: { user: per(server0.user, server1.user), sys: per(server0.sys, server1.sys) },
    deno: { user: per(deno0.user, deno1.user), sys: per(deno0.sys, deno1.sys) },
    load: (run.cpuSeconds * 1000) / run.ok,
    rps: run.rps,
  };
}

/**
 * Plinth as it was before the socket, for alternating rounds in one process: the supervisor
 * reports no socket, so Plinth's proxy uses the runtime's port. `restore` undoes it.
 */
function plinthViaPort(runtime: Deps['runtime']): { restore(): void } {
  const own = Object.getOwnPropertyDescriptor(runtime, 'socketPath')!;
  Object.defineProperty(runtime, 'socketPath', { configurable: true, get: () => null });
  return { restore: () => Object.defineProperty(runtime, 'socketPath', own) };
}

const COLUMNS = 'server (user+sys)    deno (user+sys)      load    total    req/s';
const fmt = (x: number) => x.toFixed(3);
const line = (c: RunCost) =>
  `${fmt(sum(c.server))} (${fmt(c.server.user)}+${fmt(c.server.sys)})  ${fmt(sum(c.deno))} (${fmt(c.deno.user)}+${fmt(c.deno.sys)})  ${fmt(c.load)}  ${fmt(totalOf(c))}  ${c.rps.toFixed(0).padStart(6)}`;

async function main(): Promise<void> {
  const db = await benchDatabase();
  const plinth = await startPlinth(db.url).catch(async (err) => {
    await db.stop();
    throw err;
  });
  try {
    const runtime = plinth.deps.runtime;
    const ctx = {
      plinthUrl: plinth.url,
      apiKey: plinth.keys.apiKey,
      anonKey: plinth.keys.anonKey,
      functionsRuntime: { url: runtime.baseUrl ?? '', token: runtime.token },
    };
    await deployTrivialFunction(ctx);
    const denoPid = runtime.pid;
    if (denoPid === undefined) throw new Error('the function runtime is not running');
    const bare = { socket: await startBareProxy(runtime, 'socket'), port: await startBareProxy(runtime, 'port') };
    const viaPlinth = {
      url: plinth.url,
      path: `/functions/${TRIVIAL_FUNCTION}`,
      auth: { authorization: `Bearer ${ctx.anonKey}` },
    };
    const sides = {
      plinth: viaPlinth,
      'plinth-port': viaPlinth,
      bare: { url: bare.socket.url, path: `/${TRIVIAL_FUNCTION}`, auth: {} },
      'bare-port': { url: bare.port.url, path: `/${TRIVIAL_FUNCTION}`, auth: {} },
      direct: {
        url: ctx.functionsRuntime.url,
        path: `/${TRIVIAL_FUNCTION}`,
        auth: { 'x-plinth-runtime-token': runtime.token },
      },
    };
    type Side = keyof typeof sides;
    const order = Object.keys(sides) as Side[];
    const seen = Object.fromEntries(order.map((side) => [side, [] as RunCost[]])) as Record<Side, RunCost[]>;
    const load = RATE ? `${RATE} req/s open loop` : 'closed loop';
    console.log(
      `CPU ms per request, ${CONNECTIONS} connections, ${load}, ${SECONDS} s runs (socket: ${runtime.socketPath})`,
    );
    console.log(`round side         ${COLUMNS}`);
    // Round 0 warms every path (JIT, connection pools) and is not counted.
    for (let round = 0; round <= ROUNDS; round++) {
      for (const side of order) {
        const { url, path, auth } = sides[side];
        const spec: LoadSpec = {
          url,
          method: 'GET',
          path,
          headers: auth,
          connections: CONNECTIONS,
          seconds: SECONDS,
          expectStatus: 200,
        };
        if (RATE) spec.overallRate = RATE;
        const port = side === 'plinth-port' ? plinthViaPort(runtime) : null;
        const cost = await measure(spec, denoPid).finally(() => port?.restore());
        if (round > 0) seen[side].push(cost);
        console.log(`${String(round).padStart(5)} ${side.padEnd(12)} ${line(cost)}`);
      }
    }
    const medianOf = (side: Side): RunCost => {
      const m = (pick: (c: RunCost) => number) => median(seen[side].map(pick));
      return {
        server: { user: m((c) => c.server.user), sys: m((c) => c.server.sys) },
        deno: { user: m((c) => c.deno.user), sys: m((c) => c.deno.sys) },
        load: m((c) => c.load),
        rps: m((c) => c.rps),
      };
    };
    const medians = Object.fromEntries(order.map((side) => [side, medianOf(side)])) as Record<Side, RunCost>;
    const direct = totalOf(medians.direct);
    console.log(`\nmedian       ${COLUMNS}  ratio to direct if CPU-bound`);
    for (const side of order)
      console.log(
        `${side.padEnd(12)} ${line(medians[side])}  ${((direct / totalOf(medians[side])) * 100).toFixed(0)}%`,
      );
    await bare.socket.close();
    await bare.port.close();
  } finally {
    await plinth.close();
    await db.stop();
  }
}

await main();
