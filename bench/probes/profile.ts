// Question: where does Plinth's CPU go on a hot path: self time by code area and function, and socket reads and
//   writes per request, against the limit?
// Last answer: 2026-11-27 21:40–22:10, refresh: 1.96 writes and 1.86 reads per request (limit 1.96 / 1.88), same
//   system CPU; the gap is user-space JavaScript (0.448 against 0.338 ms), no function more than 12 µs above the
//   limit's.
//
// In process on purpose (bench/lib/plinth-in-process.ts): the V8 profiler and /proc/self/io read
// this process, so Plinth runs in it, with stdout logging off (the profile leaves the log line out).
// `npx tsx bench/probes/profile.ts [scenario…]`: where Plinth's CPU goes on a hot path. Starts the
// embedded PostgreSQL and Plinth, drives each scenario (current-session, refresh, records-read-one,
// records-list-20, records-insert-one, functions-invoke) for PROFILE_SECONDS (default 5) under the
// V8 sampling profiler, and prints self time by code area and by function, with the server CPU and
// the socket reads and writes per request (and the Deno runtime's CPU, for functions).
// PROFILE_AGAINST_LIMIT=1: current session and refresh are also profiled on the limit (bench/lib/limit.ts,
// same process, same load), and the functions are listed by how much more self time Plinth spends in
// them: what Plinth's request frame costs beyond a bare handler, function by function.
// Each profile is written to <tmpdir>/plinth-profiles/<scenario>.cpuprofile (open it in Chrome DevTools).
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { Session, type Profiler } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startBenchDatabase } from '../lib/environment.js';
import { runtimeCpuSeconds } from '../lib/cpu.js';
import { registerUser } from '../lib/fixtures.js';
import { deployTrivialFunction, TRIVIAL_FUNCTION } from '../suite/functions.js';
import { runLoad, type LoadSpec } from '../lib/load.js';
import { currentSessionLoad, refreshLoad } from '../lib/session-loads.js';
import { createRecordsTable } from '../lib/records.js';
import { startLimitBeside } from '../lib/limit.js';
import { startPlinthInProcess as startPlinth } from '../lib/plinth-in-process.js';
import type { BenchContext } from '../suite/scenario.js';
import { RECORDS_SCENARIOS, recordsSpec, type RecordsScenario } from '../suite/scenarios.js';

const SCENARIO_NAMES = ['current-session', 'refresh', ...RECORDS_SCENARIOS, 'functions-invoke'] as const;
/** Refresh tokens minted per second of a refresh run: more than two cores rotate. */
const REFRESH_TOKENS_PER_SECOND = 4_000;
type ProfiledScenario = (typeof SCENARIO_NAMES)[number];

/** Where a script lives, coarse enough to add up: a package, one of our modules, or node itself. */
function areaOf(url: string): string {
  if (!url) return '(native / idle / gc)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const ours = /\/(src\/(?:modules\/[^/]+|core|[^/]+))/.exec(url);
  if (ours) return ours[1]!;
  if (url.startsWith('node:')) return url.split('/')[0]!;
  return url.replace(/^.*\//, '');
}

interface SelfTime {
  name: string;
  ms: number;
}

function selfTimes(profile: Profiler.Profile): { byArea: SelfTime[]; byFunction: SelfTime[]; totalMs: number } {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const hits = new Map<number, number>();
  for (const id of profile.samples ?? []) hits.set(id, (hits.get(id) ?? 0) + 1);
  const samples = profile.samples?.length ?? 1;
  const msPerSample = (profile.endTime - profile.startTime) / 1000 / samples;
  const area = new Map<string, number>();
  const fn = new Map<string, number>();
  let totalMs = 0;
  for (const [id, count] of hits) {
    const { callFrame } = nodes.get(id)!;
    if (callFrame.functionName === '(idle)') continue;
    const ms = count * msPerSample;
    totalMs += ms;
    const a = areaOf(callFrame.url);
    area.set(a, (area.get(a) ?? 0) + ms);
    const f = `${callFrame.functionName || '(anonymous)'} ${areaOf(callFrame.url)}:${callFrame.lineNumber + 1}`;
    fn.set(f, (fn.get(f) ?? 0) + ms);
  }
  const sorted = (m: Map<string, number>) => [...m].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
  return { byArea: sorted(area), byFunction: sorted(fn), totalMs };
}

/** Scenarios the limit serves at Plinth's path, with the same request. */
const LIMIT_SERVES: string[] = ['current-session', 'refresh'];

/** Read and write system calls of this process so far (Plinth and the limit run in it; the load does not). */
function socketCalls(): { reads: number; writes: number } {
  const io = readFileSync('/proc/self/io', 'utf8');
  return { reads: Number(/syscr: (\d+)/.exec(io)?.[1]), writes: Number(/syscw: (\d+)/.exec(io)?.[1]) };
}

async function main(): Promise<void> {
  const wanted = (process.argv.slice(2).length ? process.argv.slice(2) : SCENARIO_NAMES) as ProfiledScenario[];
  const seconds = Number(process.env.PROFILE_SECONDS ?? 5);
  const db = await startBenchDatabase();
  const plinth = await startPlinth(db.url).catch(async (err) => {
    await db.stop();
    throw err;
  });
  const session = new Session();
  session.connect();
  try {
    const user = await registerUser(plinth.url, 'profile@bench.local', 'bench-password-9');
    const recordIds = await createRecordsTable(db.url, user.id, 10_000);
    const ctx = {
      user,
      recordIds,
      plinthUrl: plinth.url,
      apiKey: plinth.keys.apiKey,
      anonKey: plinth.keys.anonKey,
      functionsRuntime: { url: plinth.deps.runtime.baseUrl ?? '', token: plinth.deps.runtime.token },
    } as BenchContext;
    const dir = path.join(tmpdir(), 'plinth-profiles');
    await mkdir(dir, { recursive: true });
    const tokens = {
      databaseUrl: db.url,
      userIds: [user.id],
      ttlSeconds: plinth.deps.config.refreshTokenTtlSeconds,
      dir,
      perSecond: REFRESH_TOKENS_PER_SECOND,
    };
    const specOf = async (name: ProfiledScenario, seconds: number): Promise<LoadSpec> => {
      if (name === 'current-session') return currentSessionLoad(plinth.url, user.accessToken, seconds);
      if (name === 'refresh') return refreshLoad(plinth.url, tokens, seconds);
      if (name === 'functions-invoke') {
        await deployTrivialFunction(ctx);
        return {
          url: plinth.url,
          method: 'GET',
          path: `/functions/${TRIVIAL_FUNCTION}`,
          headers: { authorization: `Bearer ${plinth.keys.anonKey}` },
          connections: 32,
          seconds,
          expectStatus: 200,
        };
      }
      return recordsSpec(ctx, name as RecordsScenario, plinth.url)(seconds, 'run');
    };
    await session.post('Profiler.enable');
    /** One profiled run; `specFor` makes a fresh spec per run (refresh tokens are spent as they are used). */
    const profiled = async (name: string, specFor: (seconds: number) => Promise<LoadSpec>) => {
      await runLoad(await specFor(1)); // warm-up: JIT, prepared statements
      const spec = await specFor(seconds);
      const cpuBefore = process.cpuUsage();
      const ioBefore = socketCalls();
      const denoBefore = await runtimeCpuSeconds();
      await session.post('Profiler.start');
      const run = await runLoad(spec);
      const { profile } = await session.post('Profiler.stop');
      const cpu = process.cpuUsage(cpuBefore);
      const io = socketCalls();
      const deno = (await runtimeCpuSeconds()) - denoBefore;
      await writeFile(path.join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
      const perRequest = (ms: number) => (ms / run.ok).toFixed(4);
      const times = selfTimes(profile);
      console.log(
        `\n== ${name}: ${run.ok} correct answers (${run.rps.toFixed(0)}/s, ${run.wrongStatus + run.errors} failures), server CPU ${((cpu.user + cpu.system) / 1000 / run.ok).toFixed(3)} ms/request (system ${(cpu.system / 1000 / run.ok).toFixed(3)}), Deno ${((deno * 1000) / run.ok).toFixed(3)}, sampled ${perRequest(times.totalMs)} ms/request, ${((io.writes - ioBefore.writes) / run.ok).toFixed(2)} writes and ${((io.reads - ioBefore.reads) / run.ok).toFixed(2)} reads/request`,
      );
      return { ...times, ok: run.ok, perRequest };
    };
    const limit =
      process.env.PROFILE_AGAINST_LIMIT === '1'
        ? await startLimitBeside(db.url, { url: plinth.url, config: plinth.deps.config })
        : undefined;
    try {
      for (const name of wanted) {
        const ours = await profiled(name, (s) => specOf(name, s));
        console.log('  self ms/request by area:');
        for (const a of ours.byArea.slice(0, 14)) console.log(`    ${ours.perRequest(a.ms).padStart(8)}  ${a.name}`);
        console.log('  self ms/request by function:');
        for (const f of ours.byFunction.slice(0, Number(process.env.PROFILE_TOP ?? 30)))
          console.log(`    ${ours.perRequest(f.ms).padStart(8)}  ${f.name}`);
        if (!limit || !LIMIT_SERVES.includes(name)) continue;
        const bare = await profiled(`${name} on the limit`, async (s) => ({
          ...(await specOf(name, s)),
          url: limit.url,
        }));
        const theirs = new Map(bare.byFunction.map((f) => [f.name, f.ms / bare.ok]));
        const names = new Set([...ours.byFunction.map((f) => f.name), ...theirs.keys()]);
        const mine = new Map(ours.byFunction.map((f) => [f.name, f.ms / ours.ok]));
        const rows = [...names]
          .map((f) => ({ name: f, plinth: mine.get(f) ?? 0, limit: theirs.get(f) ?? 0 }))
          .sort((a, b) => b.plinth - b.limit - (a.plinth - a.limit));
        console.log('  µs of self time per request, Plinth beyond the limit (Plinth, limit):');
        for (const r of rows.slice(0, Number(process.env.PROFILE_TOP ?? 30)))
          console.log(
            `    ${((r.plinth - r.limit) * 1000).toFixed(1).padStart(7)} (${(r.plinth * 1000).toFixed(1)}, ${(r.limit * 1000).toFixed(1)})  ${r.name}`,
          );
      }
    } finally {
      await limit?.close();
    }
  } finally {
    session.disconnect();
    await plinth.close();
    await db.stop();
  }
}

await main();
