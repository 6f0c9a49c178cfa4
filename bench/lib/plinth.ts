// Starts Plinth as users run it (bench/lib/compiled-server.ts: dist/main.js with npm start's node
// flags, default settings, request logging on) on the benchmark's database, and hands the bench
// what its scenarios need from outside the process: the URL, the pid (CPU per request), the
// platform keys (admin sign-in, then GET /api/metadata/{api,anon}-key), the settings it runs with
// (its environment parsed by the server's own loadConfig), the Deno runtime's URL and token, and
// an SQL connection of the bench's own for setup statements.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { type Config, loadConfig } from '../../src/config.js';
import { type CompiledServer, ROOT, startCompiledServer } from './compiled-server.js';

export interface RunningPlinth {
  url: string;
  /** The server process (its CPU: bench/lib/cpu.ts pidCpuSeconds). */
  pid: number;
  apiKey: string;
  anonKey: string;
  /** The settings the server runs with: its environment through loadConfig, as main.ts reads it. */
  config: Config;
  /** The Deno runtime the server supervises, for calling a function without Plinth in front. */
  functionsRuntime: { url: string; token: string };
  /** The bench's own connection to the server's database (setup statements; not the server's pool). */
  sql: postgres.Sql;
  /** Where the server's stdout and stderr go. */
  logFile: string;
  close(): Promise<void>;
}

const ADMIN_EMAIL = 'admin@bench.local';

/**
 * FUNCTIONS_DENO_PATH (a documented setting) pointed at a wrapper that execs the real Deno (so the
 * runtime is still the server's direct child, named deno) with its stdin copied to a file: the
 * runtime's start line, which carries the token the server made for it. Null when this platform
 * has no Deno package (the bench then cannot call the runtime directly).
 */
function denoWrapper(tree: string, dir: string): { path: string; startLine: string } | null {
  const platform = `@deno/${process.platform}-${process.arch}${process.platform === 'linux' ? '-glibc' : ''}`;
  let deno: string;
  try {
    deno = path.join(
      path.dirname(createRequire(path.join(tree, 'package.json')).resolve(`${platform}/package.json`)),
      'deno',
    );
  } catch {
    return null;
  }
  const startLine = path.join(dir, 'runtime-start.json');
  const wrapper = path.join(dir, 'deno');
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  writeFileSync(wrapper, `#!/bin/bash\nexec ${quote(deno)} "$@" < <(exec tee ${quote(startLine)})\n`);
  chmodSync(wrapper, 0o755);
  return { path: wrapper, startLine };
}

function runtimeToken(startLine: string | undefined): string {
  if (!startLine || !existsSync(startLine)) return '';
  const first = readFileSync(startLine, 'utf8').split('\n')[0] ?? '';
  try {
    return (JSON.parse(first) as { token?: string }).token ?? '';
  } catch {
    return '';
  }
}

async function platformKeys(url: string, admin: { email: string; password: string }) {
  const signIn = await fetch(`${url}/api/auth/admin/sessions?client_type=server`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(admin),
  });
  if (signIn.status !== 200) throw new Error(`admin sign-in: ${signIn.status} ${await signIn.text()}`);
  const auth = { authorization: `Bearer ${((await signIn.json()) as { accessToken: string }).accessToken}` };
  const read = async <T>(route: string): Promise<T> => {
    const res = await fetch(`${url}${route}`, { headers: auth });
    if (res.status !== 200) throw new Error(`GET ${route}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const { apiKey } = await read<{ apiKey: string }>('/api/metadata/api-key');
  const { anonKey } = await read<{ anonKey: string }>('/api/metadata/anon-key');
  return { apiKey, anonKey };
}

/**
 * Starts the compiled server of `tree` (default: this checkout) on `databaseUrl`. `env`: further
 * settings (e.g. where a scenario's upstream peer listens); LOGS_STORE in the bench's environment
 * is passed on (LOGS_STORE=false: the same run without stored logs, an A/B).
 */
export async function startPlinth(
  databaseUrl: string,
  env: Record<string, string> = {},
  tree: string = ROOT,
): Promise<RunningPlinth> {
  const dir = mkdtempSync(path.join(tmpdir(), 'plinth-bench-server-'));
  const admin = { email: ADMIN_EMAIL, password: randomBytes(12).toString('hex') };
  const deno = denoWrapper(tree, dir);
  let server: CompiledServer | undefined;
  const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
  try {
    server = await startCompiledServer({
      tree,
      logFile: path.join(dir, 'server.log'),
      env: {
        DATABASE_URL: databaseUrl,
        PLINTH_DATA_DIR: path.join(dir, 'data'),
        PLINTH_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        ADMIN_EMAIL: admin.email,
        ADMIN_PASSWORD: admin.password,
        ...(deno ? { FUNCTIONS_DENO_PATH: deno.path } : {}),
        ...(process.env.LOGS_STORE ? { LOGS_STORE: process.env.LOGS_STORE } : {}),
        ...env,
      },
    });
    const keys = await platformKeys(server.url, admin);
    const running = server;
    return {
      url: server.url,
      pid: server.pid,
      ...keys,
      config: loadConfig(server.env),
      functionsRuntime: {
        url: `http://127.0.0.1:${server.env.FUNCTIONS_RUNTIME_PORT}`,
        // Read when used: the runtime starts in the background after the server is ready.
        get token() {
          return runtimeToken(deno?.startLine);
        },
      },
      sql,
      logFile: server.logFile,
      async close() {
        await running.stop();
        await sql.end({ timeout: 5 });
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await server?.stop();
    await sql.end({ timeout: 5 });
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

/** startPlinth of another checkout (A/B of two trees): its own dist/main.js, built first if stale. */
export function plinthStarterOf(tree: string): typeof startPlinth {
  const root = path.resolve(tree);
  if (!existsSync(path.join(root, 'src', 'main.ts'))) throw new Error(`${root} is not a Plinth checkout`);
  return (databaseUrl, env = {}) => startPlinth(databaseUrl, env, root);
}
