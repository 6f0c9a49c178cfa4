// The embedded PostgreSQL (real binaries from the npm registry) that serves as the database when
// DATABASE_URL is unset: data under <dataDir>/pg, loopback only, its own port. It is supervised:
// a postmaster that dies is started again with backoff; one left by an earlier run is stopped first.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomHex } from '../core/ids.js';
import { pgBinaries, postgresOsUser, type PgBinaries, type RunAs } from './postgres-binaries.js';
import { settlesWithin } from '../core/settles-within.js';
import { clearStalePostmaster, readPostmasterPid } from './stale-postmaster.js';

export type EmbeddedStatus = 'running' | 'restarting' | 'stopped';

export interface EmbeddedDatabase {
  /** Connection URL of the server's `postgres` database. */
  url: string;
  readonly status: EmbeddedStatus;
  /** The postmaster's pid while it runs. */
  readonly pid: number | undefined;
  /** How many times the postmaster was started again after dying. */
  readonly restarts: number;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  /** Keep the data after stop (the server) or throw it away (tests). */
  persistent?: boolean;
  /** PostgreSQL's own output, line by line. */
  onLog?: (line: string) => void;
  /** What the supervisor does: stale servers stopped, restarts. */
  onEvent?: (message: string) => void;
  /**
   * Own process group (the server): a Ctrl-C in the terminal reaches Plinth only, which stops the
   * database after draining its requests. Tests leave it attached, so an interrupted run takes
   * its database down too.
   */
  detached?: boolean;
  /** Server settings given on the command line (e.g. wal_level=logical for change capture). */
  settings?: Record<string, string>;
}

const READY_TIMEOUT_MS = 60_000;
const MAX_RESTART_DELAY_MS = 5_000;
const START_ATTEMPTS = 4;

/** Creates the cluster (initdb) with a scram-sha-256 password for the `postgres` role. */
async function initialise(bin: PgBinaries, pgDir: string, password: string, runAs: RunAs): Promise<void> {
  await mkdir(pgDir, { recursive: true, mode: 0o700 });
  const pwFile = path.join(pgDir, '..', `pg-initdb-${randomHex(6)}`);
  await writeFile(pwFile, `${password}\n`, { mode: 0o600 });
  if (runAs.uid !== undefined) {
    await chown(pgDir, runAs.uid, runAs.gid!);
    await chown(pwFile, runAs.uid, runAs.gid!);
  }
  try {
    const args = [
      `--pgdata=${pgDir}`,
      '--auth=scram-sha-256',
      '--username=postgres',
      `--pwfile=${pwFile}`,
      '--lc-messages=C',
      '--encoding=UTF8',
    ];
    const child = spawn(bin.initdb, args, { ...runAs, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    if (code !== 0) throw new Error(`initdb failed (exit ${code}): ${output.trim()}`);
  } finally {
    await rm(pwFile, { force: true });
  }
}

/** The password of the `postgres` role, generated on the first start. */
async function clusterPassword(dataDir: string, fresh: boolean): Promise<string> {
  const file = path.join(dataDir, 'pg-password');
  if (!fresh && existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomHex(16);
  await writeFile(file, password, { mode: 0o600 });
  return password;
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const pgDir = path.join(options.dataDir, 'pg');
  const log = options.onLog ?? (() => {});
  const event = options.onEvent ?? log;
  // Traversable (not listable) by the postgres OS user; the files inside keep mode 0600.
  await mkdir(options.dataDir, { recursive: true, mode: 0o711 });
  await chmod(options.dataDir, 0o711);
  const [bin, runAs] = await Promise.all([pgBinaries(), postgresOsUser()]);
  const fresh = !existsSync(path.join(pgDir, 'PG_VERSION'));
  const password = await clusterPassword(options.dataDir, fresh);
  if (fresh) await initialise(bin, pgDir, password, runAs);
  await clearStalePostmaster(pgDir, { log: event });

  const args = [
    '-D',
    pgDir,
    '-p',
    String(options.port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
    ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
  ];
  const recent: string[] = [];
  let child: ChildProcess | undefined;
  let status: EmbeddedStatus = 'restarting';
  let restarts = 0;
  let failures = 0;
  let readyAt = 0;
  let restartTimer: NodeJS.Timeout | undefined;

  /** Spawns the postmaster and resolves once postmaster.pid says it is ready. */
  async function launch(): Promise<void> {
    const proc = spawn(bin.postgres, args, {
      ...runAs,
      detached: options.detached ?? false,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    proc.once('error', (err) => event(`PostgreSQL could not be started: ${err.message}`));
    if (!proc.stdout || !proc.stderr)
      throw new Error('PostgreSQL could not be started (no pipes: out of file descriptors?)');
    const onLine = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        recent.push(line);
        if (recent.length > 20) recent.shift();
        log(line);
      }
    };
    proc.stdout.on('data', onLine);
    proc.stderr.on('data', onLine);
    let exited = false;
    proc.once('exit', (code, signal) => {
      exited = true;
      onExit(proc, signal ?? String(code));
    });
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (exited || proc.pid === undefined) throw new Error(`PostgreSQL did not start:\n${recent.join('\n')}`);
      const file = readPostmasterPid(pgDir);
      if (file?.pid === proc.pid && file.status === 'ready') break;
      if (Date.now() > deadline) {
        proc.kill('SIGQUIT');
        throw new Error(`PostgreSQL was not ready within ${READY_TIMEOUT_MS} ms:\n${recent.join('\n')}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    status = 'running';
    readyAt = Date.now();
  }

  /** Starts, retrying a few times: backends of a killed postmaster may hold its memory briefly. */
  async function startWithRetries(attempts: number): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await clearStalePostmaster(pgDir, { log: event });
        await launch();
        return;
      } catch (err) {
        if (attempt >= attempts || status === 'stopped') throw err;
        await new Promise((r) => setTimeout(r, 250 * attempt));
      }
    }
  }

  function onExit(proc: ChildProcess, how: string) {
    if (proc !== child || status !== 'running') return;
    child = undefined;
    status = 'restarting';
    // A postmaster that ran a while is started again at once; a crash loop backs off.
    failures = Date.now() - readyAt > 30_000 ? 0 : failures + 1;
    const delay = Math.min(250 * 2 ** failures, MAX_RESTART_DELAY_MS);
    event(`embedded PostgreSQL exited (${how}); restarting it in ${delay} ms`);
    scheduleRestart(delay);
  }

  function scheduleRestart(delay: number) {
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      if (status !== 'restarting') return;
      startWithRetries(1).then(
        () => {
          restarts += 1;
          event(`embedded PostgreSQL restarted (pid ${child?.pid})`);
        },
        (err: Error) => {
          if (status !== 'restarting') return;
          failures += 1;
          const next = Math.min(250 * 2 ** failures, MAX_RESTART_DELAY_MS);
          event(
            `embedded PostgreSQL could not be restarted (${err.message.split('\n').at(-1)}); next try in ${next} ms`,
          );
          scheduleRestart(next);
        },
      );
    }, delay);
  }

  await startWithRetries(START_ATTEMPTS);

  return {
    url: `postgres://postgres:${password}@127.0.0.1:${options.port}/postgres`,
    get status() {
      return status;
    },
    get pid() {
      return status === 'running' ? child?.pid : undefined;
    },
    get restarts() {
      return restarts;
    },
    async stop() {
      status = 'stopped';
      if (restartTimer) clearTimeout(restartTimer);
      const proc = child;
      child = undefined;
      if (proc && proc.exitCode === null && proc.signalCode === null) await stopPostmaster(proc);
      if (options.persistent === false) await rm(pgDir, { recursive: true, force: true });
    },
  };
}

/** Fast shutdown (SIGINT), then immediate (SIGQUIT) after 15 s, then SIGKILL after 5 s more. */
async function stopPostmaster(proc: ChildProcess): Promise<void> {
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const within = (ms: number) => settlesWithin(exited, ms);
  proc.kill('SIGINT');
  if (await within(15_000)) return;
  proc.kill('SIGQUIT');
  if (await within(5_000)) return;
  proc.kill('SIGKILL');
  await exited;
}
