// Optional CPU pinning for benches whose clients would otherwise share cores with the server
// (Linux `taskset`): BENCH_SERVER_CPUS pins this process — Plinth, its thread pool and the
// PostgreSQL and Deno processes it starts afterwards — and BENCH_CLIENT_CPUS pins each client
// worker (load generator, probe) once forked, e.g. BENCH_SERVER_CPUS=0 BENCH_CLIENT_CPUS=1 on two
// cores: a stand-in for a load generator on another machine. Unset: nothing is pinned.
import { execFileSync } from 'node:child_process';

const SERVER_CPUS = process.env.BENCH_SERVER_CPUS;
const CLIENT_CPUS = process.env.BENCH_CLIENT_CPUS;

function pin(pid: number, cpus: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
}

/** Pins this process (all its threads) to BENCH_SERVER_CPUS, if set; returns the CPU list. */
export function pinServer(): string | undefined {
  if (SERVER_CPUS) pin(process.pid, SERVER_CPUS);
  return SERVER_CPUS;
}

/** Pins a forked client worker to BENCH_CLIENT_CPUS, if set. */
export function pinClient(pid: number | undefined): void {
  if (CLIENT_CPUS && pid) pin(pid, CLIENT_CPUS);
}

/** What was pinned where, for a report. */
export const affinity = () => ({ server: SERVER_CPUS ?? 'any', clients: CLIENT_CPUS ?? 'any' });
