// Runs the real server (`node --import tsx src/main.ts`) as a child process with a data directory,
// ports and environment of its own, and cleans up after it, its embedded PostgreSQL included.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../harness/free-port.js';
import { TEST_ADMIN, TEST_ENCRYPTION_KEY } from '../../harness/test-app.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  baseUrl: string;
  dataDir: string;
  env: Record<string, string>;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  exited: Promise<number | string>;
  /** Resolves once stdout holds `text`; rejects when the process ends first or after `ms`. */
  waitForOutput(text: string, ms?: number): Promise<void>;
  /** The API key printed on the first start. */
  apiKey(): string;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Runs the server under `ulimit -n` (its open-file limit). */
  fileLimit?: number;
  dataDir?: string;
}

/** The environment without the PLINTH_/database settings of the machine running the tests. */
function baseEnv(): Record<string, string> {
  const keep = Object.entries(process.env).filter(
    ([k, v]) =>
      v !== undefined && !k.startsWith('PLINTH_') && !/^(DATABASE_URL|PORT|EMBEDDED_PG_PORT|FUNCTIONS_.*)$/.test(k),
  );
  return Object.fromEntries(keep) as Record<string, string>;
}

/** Spawns the server; it is not waited for (use waitForOutput('Plinth is listening')). */
export async function spawnServer(options: StartOptions = {}): Promise<ServerProcess> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'plinth-life-')));
  const port = await freePort();
  const env: Record<string, string> = {
    ...baseEnv(),
    PORT: String(port),
    HOST: '127.0.0.1',
    PLINTH_DATA_DIR: dataDir,
    PLINTH_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    ADMIN_EMAIL: TEST_ADMIN.email,
    ADMIN_PASSWORD: TEST_ADMIN.password,
    LOG_LEVEL: 'info',
    DB_POOL_SIZE: '5',
    FUNCTIONS_RUNTIME_PORT: '0',
    EMBEDDED_PG_PORT: String(await freePort()),
    ...options.env,
  };
  const node = `"${process.execPath}" --import tsx src/main.ts`;
  const child = options.fileLimit
    ? spawn('sh', ['-c', `ulimit -n ${options.fileLimit} && exec ${node}`], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        cwd: ROOT,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')),
  );
  let ended = false;
  void exited.then(() => (ended = true));

  const waitForOutput = (text: string, ms = 90_000) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (out.includes(text)) return done(resolve);
        if (ended) return done(() => reject(new Error(`server exited before printing "${text}":\n${out}\n${err}`)));
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
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    dataDir,
    env,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForOutput,
    apiKey() {
      const match = /API key:\s+(\S+)/.exec(out);
      if (!match) throw new Error(`no API key in the output:\n${out}`);
      return match[1]!;
    },
  };
}

/** The live postmaster of a data directory, read from its postmaster.pid. */
export function postmasterPid(dataDir: string): number | undefined {
  const file = path.join(dataDir, 'pg', 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : undefined;
}

/** Whether a process exists and is not a zombie waiting to be reaped. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\S+ \(.*\) [ZX]/s.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Waits (bounded polling: a real process is involved) until `condition` holds. */
export async function until(condition: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Ends the server and anything it left behind (its postmaster), then removes its data. */
export async function cleanUp(server: ServerProcess | undefined, keepData = false): Promise<void> {
  if (!server) return;
  if (server.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill('SIGKILL');
    await server.exited;
  }
  const pid = postmasterPid(server.dataDir);
  if (pid) {
    process.kill(pid, 'SIGKILL');
    await until(() => !alive(pid), 10_000, 'the postmaster to end');
  }
  if (!keepData) await rm(server.dataDir, { recursive: true, force: true });
}
