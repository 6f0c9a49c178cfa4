// The one way benchmarks start Plinth as users run it: the compiled server (`dist/main.js`) with the
// node flags of package.json's "start" script (what `npm start` runs), in its own process, with
// default settings unless a bench passes others. stdout and stderr go to a log file (the kernel
// writes them; nobody in the bench spends CPU reading them). The tree is built first when its
// dist/ is older than its sources.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../test/harness/free-port.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CompiledServer {
  url: string;
  port: number;
  pid: number;
  child: ChildProcess;
  /** The environment the process was started with (parse it with loadConfig to read its settings). */
  env: Record<string, string>;
  /** The file holding the process's stdout and stderr. */
  logFile: string;
  /** The last `bytes` of its output (for error messages). */
  outputTail(bytes?: number): string;
  /** SIGTERM, then SIGKILL after 10 s; resolves once it exited. */
  stop(): Promise<void>;
}

/** The `--flags` of the tree's "start" script (`exec node --enable-source-maps … dist/main.js`). */
export function startFlagsOf(tree: string): string[] {
  const start = JSON.parse(readFileSync(path.join(tree, 'package.json'), 'utf8')).scripts.start as string;
  return start.split(' ').filter((word) => word.startsWith('--'));
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

const built = new Set<string>();

/**
 * Builds the server of `tree` (the function-scope bundle and `tsc -p tsconfig.build.json`, the
 * server half of `npm run build`) when dist/main.js is missing or older than a file under src/ or
 * runtime/. Once per tree per process.
 */
export function buildServerIfStale(tree: string): void {
  if (built.has(tree)) return;
  const main = path.join(tree, 'dist', 'main.js');
  const sources = Math.max(newestMtime(path.join(tree, 'src')), newestMtime(path.join(tree, 'runtime')));
  if (!existsSync(main) || statSync(main).mtimeMs < sources) {
    console.log(`Building the server of ${tree} (dist/ is older than its sources)…`);
    const bundle = path.join(tree, 'scripts', 'bundle-function-scope.mjs');
    if (existsSync(bundle)) execFileSync(process.execPath, [bundle], { cwd: tree, stdio: 'inherit' });
    execFileSync(process.execPath, [path.join(tree, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
      cwd: tree,
      stdio: 'inherit',
    });
  }
  built.add(tree);
}

async function waitReady(url: string, child: ChildProcess, tail: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the server exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${tail()}`);
    try {
      const res = await fetch(`${url}/api/health/ready`, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the server was not ready within 120 s:\n${tail()}`);
}

/**
 * Starts `tree`'s dist/main.js on a free loopback port and waits until /api/health/ready answers
 * 200. `env` is the server's settings on top of this process's environment (DATABASE_URL,
 * PLINTH_DATA_DIR, PLINTH_ENCRYPTION_KEY, ADMIN_* are the caller's to give); `logFile` receives its output.
 */
export async function startCompiledServer(o: {
  env: Record<string, string>;
  logFile: string;
  tree?: string;
}): Promise<CompiledServer> {
  const tree = o.tree ?? ROOT;
  buildServerIfStale(tree);
  const port = await freePort();
  const env: Record<string, string> = {
    ...(Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined)) as Record<string, string>),
    HOST: '127.0.0.1',
    PORT: String(port),
    // The runtime's default port (7133) would clash between servers of one run.
    FUNCTIONS_RUNTIME_PORT: String(await freePort()),
    ...o.env,
  };
  const out = openSync(o.logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(
      process.execPath,
      [
        ...startFlagsOf(tree),
        ...(process.env.BENCH_CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE}`] : []),
        'dist/main.js',
      ],
      {
        cwd: tree,
        env,
        stdio: ['ignore', out, out],
      },
    );
  } finally {
    closeSync(out);
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const outputTail = (bytes = 4_000) => {
    try {
      return readFileSync(o.logFile, 'utf8').slice(-bytes);
    } catch {
      return '';
    }
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(force);
    }
  };
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitReady(url, child, outputTail);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, port, pid: child.pid!, child, env, logFile: o.logFile, outputTail, stop };
}
