// CPU time, in seconds, of the parts that share this machine during a run: the server under test
// (Plinth's own process, or this process for the limit servers run here; with their thread pools:
// argon2, RSA), PostgreSQL (the postmaster and its backends) and the Deno function runtimes the
// servers start. The load generator reports its own; whatever else the machine did is "other" (noise). Linux
// only (/proc); elsewhere those shares are NaN.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux architecture Node runs on

export const processCpuSeconds = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

/** Command name, parent pid and CPU ticks (own; own + reaped children) from /proc/<pid>/stat. */
async function statOf(
  pid: string,
): Promise<{ name: string; ppid: string; own: number; withChildren: number } | undefined> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (!text) return undefined;
  // Fields after the command name, which is in parentheses and may contain spaces.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((i) => Number(f[i]));
  const name = text.slice(text.indexOf('(') + 1, text.lastIndexOf(')'));
  return { name, ppid: f[1]!, own: utime! + stime!, withChildren: utime! + stime! + cutime! + cstime! };
}

/** CPU seconds used so far by one process itself (its children apart; NaN once it is gone). */
export async function pidCpuSeconds(pid: number): Promise<number> {
  const stat = await statOf(String(pid));
  return stat ? stat.own / TICKS_PER_SECOND : NaN;
}

/** CPU seconds used so far by the Deno runtimes that `parents` started (0 when there are none). */
export async function runtimeCpuSeconds(parents: number[] = [process.pid]): Promise<number> {
  const parentIds = new Set(parents.map(String));
  try {
    let ticks = 0;
    for (const pid of await readdir('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const stat = await statOf(pid);
      if (stat && parentIds.has(stat.ppid) && stat.name === 'deno') ticks += stat.withChildren;
    }
    return ticks / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** CPU seconds used so far by the PostgreSQL server whose data directory is `pgDataDir`. */
export async function postgresCpuSeconds(pgDataDir: string): Promise<number> {
  try {
    const postmaster = (await readFile(path.join(pgDataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]!.trim();
    let ticks = (await statOf(postmaster))?.withChildren ?? NaN;
    for (const pid of await readdir('/proc')) {
      if (!/^\d+$/.test(pid) || pid === postmaster) continue;
      const stat = await statOf(pid);
      if (stat?.ppid === postmaster) ticks += stat.own;
    }
    return ticks / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** Busy CPU seconds of the whole machine so far, all cores (from /proc/stat; NaN elsewhere). */
export async function machineBusySeconds(): Promise<number> {
  try {
    const [, ...fields] = (await readFile('/proc/stat', 'utf8')).split('\n')[0]!.trim().split(/\s+/);
    // user nice system idle iowait irq softirq steal ...: busy is all but idle and iowait.
    const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
    return (user! + nice! + system! + irq! + softirq! + (steal ?? 0)) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/**
 * CPU seconds used so far by every process whose command name is `name` (e.g. `nats-server`,
 * `redis-server`: a broker the machine runs, shared with whatever else uses it; NaN elsewhere).
 */
export async function commandCpuSeconds(name: string): Promise<number> {
  try {
    let ticks = 0;
    for (const pid of await readdir('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const stat = await statOf(pid);
      if (stat?.name === name) ticks += stat.own;
    }
    return ticks / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}
