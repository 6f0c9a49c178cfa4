// Before the embedded PostgreSQL starts: a postmaster left by an earlier run (its server was
// killed) is stopped, whether it still serves or is stuck shutting down, and a pid file naming a
// dead or unrelated process is removed, so that neither blocks the start. A postmaster whose
// Plinth still runs (a second start in the same folder) is never touched: the start is refused.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { processAlive, processCommandLine } from './postgres-binaries.js';

/** A postmaster in the data directory still run by another live server (the start must stop). */
export class DataDirInUseError extends Error {
  constructor(
    readonly pgDir: string,
    readonly ownerPid: number,
  ) {
    super(
      `Another Plinth server (pid ${ownerPid}) is running on this data directory (${path.dirname(pgDir)}) ` +
        'and its database: stop it first, or set PLINTH_DATA_DIR to another folder to run a second server',
    );
    this.name = 'DataDirInUseError';
  }
}

export interface PostmasterPidFile {
  pid: number;
  /** `starting`, `ready`, `stopping` or `standby` (PostgreSQL 10+), when written. */
  status?: string;
}

/** postmaster.pid: line 1 the pid, line 8 the status. */
export function readPostmasterPid(pgDir: string): PostmasterPidFile | undefined {
  const file = path.join(pgDir, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  let lines: string[];
  try {
    lines = readFileSync(file, 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const status = lines[7]?.trim();
  return { pid: Number(lines[0]), status: status || undefined };
}

/** Whether `pid` is a postgres process serving `pgDir` (assumed so where /proc is missing). */
function servesDataDir(pid: number, pgDir: string): boolean {
  const argv = processCommandLine(pid);
  if (!argv) return true;
  const d = argv.indexOf('-D');
  return d >= 0 && path.resolve(argv[d + 1] ?? '') === path.resolve(pgDir);
}

/** The parent pid of a process: /proc on Linux, `ps` elsewhere; undefined when unknown. */
function parentPid(pid: number): number | undefined {
  try {
    // Field 4 of /proc/<pid>/stat, after the command name in parentheses (which may hold spaces).
    const ppid = Number(
      readFileSync(`/proc/${pid}/stat`, 'utf8')
        .replace(/^.*\) /s, '')
        .split(' ')[1],
    );
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    try {
      const ppid = Number(execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' }).trim());
      return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
    } catch {
      return undefined;
    }
  }
}

/** Whether a process runs Node.js (a Plinth server runs `node dist/main.js`). */
function runsNode(pid: number): boolean {
  const argv0 = processCommandLine(pid)?.[0];
  if (argv0 === undefined) return true; // no /proc: a live parent that is not init is taken as an owner
  return argv0 === process.execPath || /^node(js)?(\d+)?$/.test(path.basename(argv0));
}

/**
 * The pid of another live server that runs the postmaster of `pgDir`, or undefined when there is
 * none (no postmaster, or one whose server is gone: it was re-parented to init or a subreaper,
 * which is not a Node.js process). Reads only: nothing is stopped or removed.
 */
export function liveOwnerOfPostmaster(pgDir: string): number | undefined {
  const found = readPostmasterPid(pgDir);
  if (!found) return undefined;
  const { pid } = found;
  if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid) || !servesDataDir(pid, pgDir)) return undefined;
  const owner = parentPid(pid);
  if (owner === undefined || owner <= 1 || owner === process.pid || !processAlive(owner)) return undefined;
  return runsNode(owner) ? owner : undefined;
}

async function waitGone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (processAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

export interface StaleOptions {
  log: (line: string) => void;
  /** How long a fast shutdown may take before an immediate one (and then SIGKILL). */
  fastMs?: number;
}

/**
 * Stops what an earlier run left in `pgDir`. A live postmaster gets a fast shutdown (SIGINT, as
 * `pg_ctl stop -m fast`), then an immediate one (SIGQUIT, `-m immediate`: crash recovery on the
 * next start, no committed data lost), then SIGKILL. A pid file whose process is gone or is not
 * PostgreSQL of this directory (a reused pid) is removed. A postmaster that another live server
 * runs is left alone: DataDirInUseError.
 */
export async function clearStalePostmaster(pgDir: string, options: StaleOptions): Promise<void> {
  const found = readPostmasterPid(pgDir);
  if (!found) return;
  const { pid, status } = found;
  const file = path.join(pgDir, 'postmaster.pid');
  const valid = Number.isInteger(pid) && pid > 0 && pid !== process.pid;
  if (!valid || !processAlive(pid) || !servesDataDir(pid, pgDir)) {
    const why =
      !valid || !processAlive(pid) ? `process ${pid} is gone` : `process ${pid} is not a PostgreSQL server of ${pgDir}`;
    options.log(`removing a stale postmaster.pid (${why})`);
    await rm(file, { force: true });
    return;
  }
  const owner = liveOwnerOfPostmaster(pgDir);
  if (owner !== undefined) throw new DataDirInUseError(pgDir, owner);
  options.log(
    `a PostgreSQL server from an earlier run (pid ${pid}, ${status ?? 'status unknown'}) holds ${pgDir}: stopping it`,
  );
  const steps: Array<[NodeJS.Signals, number]> = [
    ['SIGINT', options.fastMs ?? 10_000],
    ['SIGQUIT', 5_000],
    ['SIGKILL', 5_000],
  ];
  for (const [signal, ms] of steps) {
    try {
      process.kill(pid, signal);
    } catch {
      break; // gone meanwhile
    }
    if (await waitGone(pid, ms)) break;
    options.log(`the earlier PostgreSQL server (pid ${pid}) did not stop after ${signal}`);
  }
  if (processAlive(pid))
    throw new Error(`The PostgreSQL server of an earlier run (pid ${pid}) holding ${pgDir} could not be stopped`);
  // After SIGQUIT/SIGKILL the file stays behind; PostgreSQL would also overwrite it itself.
  if (readPostmasterPid(pgDir)?.pid === pid) await rm(file, { force: true });
}
