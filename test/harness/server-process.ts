// Runs the real Plinth server (`node --import tsx src/main.ts`) as a child process with a data
// directory, ports and environment of its own: captured output, exit tracking, its children and
// embedded postmaster, and sure teardown. Two ways to start it: spawnServer (as an operator starts
// it from a shell, not waited for: lifecycle tests) and startServerProcess (production mode, waited
// until ready and its keys known: fault injection).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';
import { TEST_ADMIN, TEST_ENCRYPTION_KEY } from './test-database.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const PROCESS_ADMIN = { email: 'admin@fault.local', password: 'fault-admin-password-1' };

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  child: ChildProcess;
  pid: number;
  baseUrl: string;
  port: number;
  embeddedPgPort: number;
  runtimePort: number;
  dataDir: string;
  env: Record<string, string>;
  /** The platform keys (startServerProcess asks the API for them; empty after spawnServer). */
  apiKey: string;
  anonKey: string;
  stdout(): string;
  stderr(): string;
  /** Everything the process wrote so far, both streams. */
  output(): string;
  /** Resolves when the process exits. */
  readonly exited: Promise<Exit>;
  /** Null while the process runs. */
  exit(): Exit | null;
  signal(signal: NodeJS.Signals): void;
  /** Resolves once stdout holds `text`; rejects when the process ends first or after `ms`. */
  waitForOutput(text: string, ms?: number): Promise<void>;
  /** The API key the server printed on its first start. */
  printedApiKey(): string;
  /** The live embedded postmaster's pid (null when none). */
  postmasterPid(): number | null;
  /** Direct children of the server process (e.g. the Deno runtime), from /proc. */
  children(): { pid: number; command: string }[];
  /**
   * Stops the process (SIGTERM with 5 s to drain unless told SIGKILL), then everything it started
   * and a postmaster it left behind, and removes its data directory unless kept.
   */
  close(options?: { keepDataDir?: boolean; stopSignal?: 'SIGTERM' | 'SIGKILL' }): Promise<void>;
}

/** Whether a process exists (even one we may not signal) and is not a zombie waiting to be reaped. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return !/^\S+ \(.*\) [ZX]/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Polls `check` (bounded: a real process is involved) until it returns a value other than
 * undefined or false, or the deadline passes.
 */
export async function pollUntil<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  intervalMs = 50,
): Promise<Exclude<T, false>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value as Exclude<T, false>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** The live postmaster of a data directory, read from its postmaster.pid (null when none). */
export function postmasterPid(dataDir: string): number | null {
  const file = path.join(dataDir, 'pg', 'postmaster.pid');
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : null;
}

/** A process's command line ('' once it is gone). */
function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '';
  }
}

function childrenOf(pid: number): { pid: number; command: string }[] {
  const found: { pid: number; command: string }[] = [];
  let tasks: string[] = [];
  try {
    tasks = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {
    return found;
  }
  for (const child of tasks) {
    const command = commandOf(Number(child));
    if (command) found.push({ pid: Number(child), command }); // else: exited meanwhile
  }
  return found;
}

interface Launch {
  env: Record<string, string>;
  port: number;
  embeddedPgPort: number;
  runtimePort: number;
  dataDir: string;
  fileLimit?: number;
  /** Its own process group, so that teardown reaches everything it started. */
  detached: boolean;
  /** `node dist/main.js` as `npm start` runs it (needs a build) instead of src/ through tsx. */
  compiled?: boolean;
}

function launch({ env, fileLimit, detached, compiled }: Launch): ChildProcess {
  const node = compiled ? [process.execPath, 'dist/main.js'] : [process.execPath, '--import', 'tsx', 'src/main.ts'];
  // `exec` keeps the pid: the process we signal is the server itself.
  const [command, args] = fileLimit
    ? ['/bin/sh', ['-c', `ulimit -n ${fileLimit} && exec "$@"`, 'sh', ...node]]
    : [node[0]!, node.slice(1)];
  return spawn(command as string, args as string[], { cwd: ROOT, env, detached, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Starts the process and wraps it; it is not waited for. */
function run(options: Launch): ServerProcess {
  const { dataDir, port, env } = options;
  const child = launch(options);
  const pid = child.pid!;
  let out = '';
  let err = '';
  let log = '';
  let exit: Exit | null = null;
  child.stdout!.on('data', (d) => {
    out += d;
    log += d;
  });
  child.stderr!.on('data', (d) => {
    err += d;
    log += d;
  });
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    });
  });

  const waitForOutput = (text: string, ms = 90_000) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (out.includes(text)) return done(resolve);
        if (exit) return done(() => reject(new Error(`server exited before printing "${text}":\n${out}\n${err}`)));
      };
      const timer = setTimeout(
        () => done(() => reject(new Error(`no "${text}" within ${ms} ms:\n${out}\n${err}`))),
        ms,
      );
      const done = (then: () => void) => {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        child.off('exit', check);
        then();
      };
      child.stdout!.on('data', check);
      child.once('exit', check);
      check();
    });

  return {
    child,
    pid,
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    embeddedPgPort: options.embeddedPgPort,
    runtimePort: options.runtimePort,
    dataDir,
    env,
    apiKey: '',
    anonKey: '',
    stdout: () => out,
    stderr: () => err,
    output: () => log,
    exited,
    exit: () => exit,
    signal: (signal) => {
      if (!exit) process.kill(pid, signal);
    },
    waitForOutput,
    printedApiKey() {
      const match = /API key:\s+(\w+)/.exec(out); // a pretty line or a JSON log line
      if (!match) throw new Error(`no API key in the output:\n${out}`);
      return match[1]!;
    },
    postmasterPid: () => postmasterPid(dataDir),
    children: () => childrenOf(pid),
    async close({ keepDataDir = false, stopSignal = 'SIGTERM' } = {}) {
      if (!exit) {
        process.kill(pid, stopSignal);
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
      }
      try {
        if (options.detached) process.kill(-pid, 'SIGKILL');
        else if (!exit) process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
      await exited;
      // A postmaster left behind (or started in a session of its own): ours by its data directory.
      const postmaster = postmasterPid(dataDir);
      if (postmaster && commandOf(postmaster).includes(dataDir)) {
        process.kill(postmaster, 'SIGKILL');
        await pollUntil('the postmaster to end', 10_000, () => !isAlive(postmaster));
      }
      if (!keepDataDir) await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

/** The environment without the PLINTH_/database settings of the machine running the tests. */
function shellEnv(): Record<string, string> {
  const keep = Object.entries(process.env).filter(
    ([k, v]) =>
      v !== undefined && !k.startsWith('PLINTH_') && !/^(DATABASE_URL|PORT|EMBEDDED_PG_PORT|FUNCTIONS_.*)$/.test(k),
  );
  return Object.fromEntries(keep) as Record<string, string>;
}

export interface SpawnOptions {
  env?: Record<string, string>;
  /** Runs the server under `ulimit -n` (its open-file limit). */
  fileLimit?: number;
  dataDir?: string;
  /** Runs the compiled server (`node dist/main.js`, as `npm start` does). */
  compiled?: boolean;
}

/**
 * Spawns the server as an operator starts it from a shell (the test machine's environment, the
 * test admin, embedded PostgreSQL unless DATABASE_URL is given); it is not waited for (use
 * waitForOutput('Plinth is listening')).
 */
export async function spawnServer(options: SpawnOptions = {}): Promise<ServerProcess> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'plinth-life-')));
  const port = await freePort();
  const embeddedPgPort = await freePort();
  const env: Record<string, string> = {
    ...shellEnv(),
    PORT: String(port),
    HOST: '127.0.0.1',
    PLINTH_DATA_DIR: dataDir,
    PLINTH_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    ADMIN_EMAIL: TEST_ADMIN.email,
    ADMIN_PASSWORD: TEST_ADMIN.password,
    LOG_LEVEL: 'info',
    DB_POOL_SIZE: '5',
    FUNCTIONS_RUNTIME_PORT: '0',
    EMBEDDED_PG_PORT: String(embeddedPgPort),
    ...options.env,
  };
  return run({
    env,
    port: Number(env.PORT),
    embeddedPgPort: Number(env.EMBEDDED_PG_PORT),
    runtimePort: Number(env.FUNCTIONS_RUNTIME_PORT),
    dataDir,
    fileLimit: options.fileLimit,
    detached: false,
    compiled: options.compiled,
  });
}

export interface ServerProcessOptions {
  /** A database URL (external mode); unset: the embedded PostgreSQL in the data directory. */
  databaseUrl?: string;
  /** Reuse a data directory (and its ports) of an earlier process, e.g. to restart after a crash. */
  reuse?: ServerProcess;
  /** Extra environment (deadlines, limits); settings the server does not know are ignored by it. */
  env?: Record<string, string>;
  /** A lower open-file limit for the server process (`ulimit -n`). */
  fileLimit?: number;
  /** How long to wait for /api/health/ready (embedded mode runs initdb first). */
  readyTimeoutMs?: number;
}

async function productionLaunch(options: ServerProcessOptions): Promise<Launch> {
  const reuse = options.reuse;
  const dataDir = reuse?.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'plinth-fault-')));
  const port = reuse?.port ?? (await freePort());
  const embeddedPgPort = reuse?.embeddedPgPort ?? (await freePort());
  const runtimePort = reuse?.runtimePort ?? (await freePort());
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k, v]) => v !== undefined && (k === 'PATH' || k === 'HOME' || k === 'TMPDIR' || k === 'LANG'),
    ),
  ) as Record<string, string>;
  const env: Record<string, string> = reuse?.env ?? {
    ...inherited,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    API_BASE_URL: `http://127.0.0.1:${port}`,
    EMBEDDED_PG_PORT: String(embeddedPgPort),
    FUNCTIONS_RUNTIME_PORT: String(runtimePort),
    PLINTH_DATA_DIR: dataDir,
    PLINTH_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    ADMIN_EMAIL: PROCESS_ADMIN.email,
    ADMIN_PASSWORD: PROCESS_ADMIN.password,
    LOG_LEVEL: 'warn',
    FUNCTIONS_WRITE_RATE_LIMIT: '1000',
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    ...options.env,
  };
  return { env, port, embeddedPgPort, runtimePort, dataDir, fileLimit: options.fileLimit, detached: true };
}

async function platformKeys(baseUrl: string): Promise<{ apiKey: string; anonKey: string }> {
  const signIn = await fetch(`${baseUrl}/api/auth/admin/sessions?client_type=server`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(PROCESS_ADMIN),
  });
  if (signIn.status !== 200) throw new Error(`admin sign-in failed: ${signIn.status} ${await signIn.text()}`);
  const auth = { authorization: `Bearer ${((await signIn.json()) as { accessToken: string }).accessToken}` };
  const api = (await (await fetch(`${baseUrl}/api/metadata/api-key`, { headers: auth })).json()) as { apiKey: string };
  const anon = (await (await fetch(`${baseUrl}/api/metadata/anon-key`, { headers: auth })).json()) as {
    anonKey: string;
  };
  return { apiKey: api.apiKey, anonKey: anon.anonKey };
}

/** GET /api/health/ready → 200, polled until `timeoutMs`; throws early if the process exits. */
export async function waitReady(
  server: Pick<ServerProcess, 'baseUrl' | 'exit' | 'output'>,
  timeoutMs: number,
): Promise<number> {
  const started = Date.now();
  await pollUntil(
    '/api/health/ready',
    timeoutMs,
    async () => {
      const exit = server.exit();
      if (exit)
        throw new Error(
          `the server exited (${exit.code ?? exit.signal}) before it was ready:\n${server.output().slice(-4000)}`,
        );
      try {
        const res = await fetch(`${server.baseUrl}/api/health/ready`, { signal: AbortSignal.timeout(2_000) });
        await res.body?.cancel();
        return res.status === 200 ? true : undefined;
      } catch {
        return undefined;
      }
    },
    100,
  );
  return Date.now() - started;
}

/**
 * Starts the server in production mode with a minimal environment, in a process group of its own,
 * and waits until it is ready and its keys are known.
 */
export async function startServerProcess(options: ServerProcessOptions = {}): Promise<ServerProcess> {
  const server = run(await productionLaunch(options));
  try {
    await waitReady(server, options.readyTimeoutMs ?? 60_000);
    Object.assign(server, await platformKeys(server.baseUrl));
  } catch (err) {
    await server.close({ keepDataDir: Boolean(options.reuse) });
    throw err;
  }
  return server;
}

/** The URL of the server's own database (external, or the embedded one's `plinth` database). */
export function databaseUrlOf(s: ServerProcess): string {
  if (s.env.DATABASE_URL) return s.env.DATABASE_URL;
  const password = readFileSync(path.join(s.dataDir, 'pg-password'), 'utf8').trim();
  return `postgres://postgres:${password}@127.0.0.1:${s.embeddedPgPort}/plinth`;
}
