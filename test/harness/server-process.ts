// Runs the real Plinth server (`node --import tsx src/main.ts`) as a child process for fault
// injection: free ports, its own data directory, captured output, readiness wait, sure teardown.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const PROCESS_ADMIN = { email: 'admin@fault.local', password: 'fault-admin-password-1' };

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

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ServerProcess {
  pid: number;
  baseUrl: string;
  port: number;
  embeddedPgPort: number;
  runtimePort: number;
  dataDir: string;
  env: Record<string, string>;
  apiKey: string;
  anonKey: string;
  /** Everything the process wrote so far. */
  output(): string;
  /** Resolves when the process exits. */
  readonly exited: Promise<Exit>;
  /** Null while the process runs. */
  exit(): Exit | null;
  signal(signal: NodeJS.Signals): void;
  /** The embedded postmaster's pid, from $PLINTH_DATA_DIR/pg/postmaster.pid (null when none). */
  postmasterPid(): number | null;
  /** Direct children of the server process (e.g. the Deno runtime), from /proc. */
  children(): { pid: number; command: string }[];
  /** Kills the process and everything it started, and removes its data directory. */
  close(options?: { keepDataDir?: boolean }): Promise<void>;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Polls `check` until it returns a value (not undefined) or the deadline passes. */
export async function pollUntil<T>(
  what: string,
  timeoutMs: number,
  check: () => Promise<T | undefined> | T | undefined,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
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
    try {
      const command = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0').join(' ').trim();
      found.push({ pid: Number(child), command });
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

function readPostmasterPid(dataDir: string): number | null {
  const file = path.join(dataDir, 'pg', 'postmaster.pid');
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : null;
}

async function environmentFor(options: ServerProcessOptions) {
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
  return { dataDir, port, embeddedPgPort, runtimePort, env };
}

function launch(env: Record<string, string>, fileLimit: number | undefined): ChildProcess {
  const node = [process.execPath, '--import', 'tsx', 'src/main.ts'];
  // `exec` keeps the pid: the process we signal is the server itself. Its own process group lets
  // teardown reach everything it started (Deno, the embedded postmaster and its backends).
  const [command, args] = fileLimit
    ? ['/bin/sh', ['-c', `ulimit -n ${fileLimit} && exec "$@"`, 'sh', ...node]]
    : [node[0]!, node.slice(1)];
  return spawn(command as string, args as string[], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
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

/** Starts the server and waits until it is ready and its keys are known. */
export async function startServerProcess(options: ServerProcessOptions = {}): Promise<ServerProcess> {
  const { dataDir, port, embeddedPgPort, runtimePort, env } = await environmentFor(options);
  const child = launch(env, options.fileLimit);
  const pid = child.pid!;
  let log = '';
  let exit: Exit | null = null;
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    });
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const killGroup = () => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // the group is gone
    }
  };
  const server: ServerProcess = {
    pid,
    baseUrl,
    port,
    embeddedPgPort,
    runtimePort,
    dataDir,
    env,
    apiKey: '',
    anonKey: '',
    output: () => log,
    exited,
    exit: () => exit,
    signal: (signal) => {
      if (!exit) process.kill(pid, signal);
    },
    postmasterPid: () => readPostmasterPid(dataDir),
    children: () => childrenOf(pid),
    async close({ keepDataDir = false } = {}) {
      if (!exit) {
        process.kill(pid, 'SIGTERM');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
      }
      killGroup();
      await exited;
      // A postmaster a fix may have started in a session of its own: ours by its data directory.
      const postmaster = readPostmasterPid(dataDir);
      if (postmaster && isAlive(postmaster) && readFileSync(`/proc/${postmaster}/cmdline`, 'utf8').includes(dataDir)) {
        process.kill(postmaster, 'SIGKILL');
      }
      if (!keepDataDir) await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
  try {
    await waitReady(server, options.readyTimeoutMs ?? 60_000);
    Object.assign(server, await platformKeys(baseUrl));
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
