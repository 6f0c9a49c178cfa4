// Measures one side of a scenario: a warm-up, then the measured load run, with failures counted
// and the CPU the run cost split by who spent it (server, PostgreSQL, function runtime, load generator, others).
import { availableParallelism } from 'node:os';
import { machineBusySeconds, pidCpuSeconds, postgresCpuSeconds, processCpuSeconds, runtimeCpuSeconds } from './cpu.js';
import { settleDatabase } from './settle.js';
import { failuresOf, runLoad, startLoadGenerator, type LoadResult, type LoadSpec } from './load.js';

export interface Measurement {
  rps: number;
  /** ms */
  p50: number;
  p99: number;
  /** Requests without a correct answer (non-2xx or not the expected status, connection errors, token exhaustion), warm-up included. */
  failures: number;
  /** What the failures were, e.g. "401×12, 2 connection errors". */
  failureDetail: string;
  cpu: CpuShare;
}

/** CPU ms per successful request of the measured run, by who spent it. */
export interface CpuShare {
  /** The server under test (Plinth's process, or this one for a limit server) and its thread pool (argon2, RSA signing). */
  server: number;
  postgres: number;
  /** The Deno function runtime the server started (0 in scenarios without functions). */
  runtime: number;
  /** The autocannon process (NaN where there is none). */
  load: number;
  /** Share of the machine's CPU capacity that processes outside the benchmark took (0..1). */
  otherShare: number;
}

export interface MeasureSettings {
  seconds: number;
  warmupSeconds: number;
  pgDataDir: string;
  /** The database under test: its vacuum debt is paid before each measured run. */
  databaseUrl: string;
  /**
   * Servers in processes of their own, by the URL a load is sent to: their CPU is the "server"
   * share (any other URL's server is this process), and the Deno runtimes they started are the
   * runtime share.
   */
  serverPids?: Record<string, number>;
}

/** Whose CPU counts as the server's (undefined: this process) and whose Deno children count as the runtime. */
export interface CpuSources {
  serverPid?: number;
  runtimeParents?: number[];
}

interface CpuUse {
  server: number;
  postgres: number;
  runtime: number;
  machine: number;
}

const cpuNow = async (pgDataDir: string, sources: CpuSources): Promise<CpuUse> => ({
  server: sources.serverPid === undefined ? processCpuSeconds() : await pidCpuSeconds(sources.serverPid),
  postgres: await postgresCpuSeconds(pgDataDir),
  runtime: await runtimeCpuSeconds(sources.runtimeParents ?? [process.pid]),
  machine: await machineBusySeconds(),
});

/** Runs `work` and returns what it returned with the CPU seconds spent meanwhile. */
export async function withCpu<T>(
  pgDataDir: string,
  work: () => Promise<T>,
  sources: CpuSources = {},
): Promise<{ value: T; used: CpuUse }> {
  const before = await cpuNow(pgDataDir, sources);
  const value = await work();
  const after = await cpuNow(pgDataDir, sources);
  const used = {
    server: after.server - before.server,
    postgres: after.postgres - before.postgres,
    runtime: after.runtime - before.runtime,
    machine: after.machine - before.machine,
  };
  return { value, used };
}

/** CPU per unit of work; `loadSeconds` is the load generator's own CPU (NaN when none). */
export function cpuShare(used: CpuUse, units: number, seconds: number, loadSeconds: number): CpuShare {
  const per = (cpuSeconds: number) => (cpuSeconds * 1000) / units;
  const runtime = Number.isNaN(used.runtime) ? 0 : used.runtime;
  const other = used.machine - used.server - used.postgres - runtime - (Number.isNaN(loadSeconds) ? 0 : loadSeconds);
  return {
    server: per(used.server),
    postgres: per(used.postgres),
    runtime: per(runtime),
    load: per(loadSeconds),
    otherShare: Math.max(0, other) / (availableParallelism() * seconds),
  };
}

function describeFailures(results: LoadResult[], expectStatus: number | undefined): string {
  const wrong = (code: string) => (expectStatus === undefined ? !code.startsWith('2') : code !== String(expectStatus));
  const codes: Record<string, number> = {};
  for (const r of results) {
    for (const [code, n] of Object.entries(r.statusCodes)) if (wrong(code)) codes[code] = (codes[code] ?? 0) + n;
  }
  const parts = Object.entries(codes).map(([code, n]) => `HTTP ${code}×${n}`);
  const errors = results.reduce((n, r) => n + r.errors, 0);
  if (errors) parts.push(`${errors} connection errors/timeouts`);
  if (results.some((r) => r.exhausted)) parts.push('ran out of refresh tokens');
  return parts.join(', ');
}

/** Builds the load of one phase; the measured run's builder sees the warm-up's result. */
export type SpecFor = (seconds: number, phase: 'warmup' | 'run', warmup?: LoadResult) => Promise<LoadSpec>;

/** A warm-up run (JIT, prepared statements, pools), then the measured run with its CPU use. */
export async function measureLoad(specFor: SpecFor, settings: MeasureSettings): Promise<Measurement> {
  const warmupSpec = await specFor(settings.warmupSeconds, 'warmup');
  const warmup = await runLoad(warmupSpec);
  const spec = await specFor(settings.seconds, 'run', warmup);
  await settleDatabase(settings.databaseUrl);
  // Started before the CPU count begins, so its start-up is not counted as anyone's.
  const generator = await startLoadGenerator();
  const pids = settings.serverPids ?? {};
  const { value: run, used } = await withCpu(settings.pgDataDir, () => generator.run(spec), {
    serverPid: pids[spec.url],
    runtimeParents: [process.pid, ...Object.values(pids)],
  });
  return {
    rps: run.rps,
    p50: run.p50,
    p99: run.p99,
    failures: failuresOf(warmup) + failuresOf(run),
    failureDetail: describeFailures([warmup, run], spec.expectStatus ?? warmupSpec.expectStatus),
    cpu: cpuShare(used, run.ok, run.seconds, run.cpuSeconds),
  };
}
