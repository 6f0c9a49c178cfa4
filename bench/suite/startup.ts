// Start-up benchmark of the compiled server (`node dist/main.js`, no TypeScript loader): cold start
// with database init on a fresh data directory (embedded PostgreSQL: initdb, system migrations,
// platform keys) until /api/health/ready answers 200, a restart on the same data (warm), and the
// idle RSS of the server process itself (not its PostgreSQL or Deno children) once it is ready.
// With DATABASE_URL set, the cold start uses a fresh database created on that server instead.
// Usage: npm run bench:startup [runs]   (default 3 runs; medians are printed). The node flags are
// those of `npm start`; START_NODE_FLAGS='--flag …' tries others.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { freePort } from '../../test/harness/free-port.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The node flags of `npm start` (the server is spawned as npm start runs it, without npm around it). */
const START_FLAGS =
  process.env.START_NODE_FLAGS?.split(' ').filter(Boolean) ??
  (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start as string)
    .split(' ')
    .filter((word) => word.startsWith('--'));
const TARGETS = { idleRssMb: 120, coldMs: 3_000, warmMs: 1_500 };
/** How long the process is left alone after it is ready before its RSS is read. */
const SETTLE_MS = 10_000;

interface Started {
  child: ChildProcess;
  readyMs: number;
}

/** Resident set of one process in MB, from /proc. */
function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, '') ?? 0) / 1024;
}

async function startServer(env: Record<string, string>, port: number): Promise<Started> {
  const begun = performance.now();
  const child = spawn(process.execPath, [...START_FLAGS, 'dist/main.js'], {
    cwd: ROOT,
    env: { ...process.env, ...env, LOG_LEVEL: 'warn', LOG_FORMAT: 'json' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error('the server exited before it was ready');
    if (Date.now() > deadline) throw new Error('the server was not ready within 60 s');
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/health/ready`);
      await res.arrayBuffer();
      if (res.status === 200) return { child, readyMs: performance.now() - begun };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

interface Run {
  coldMs: number;
  warmMs: number;
  idleRssMb: number;
}

/** One cold start, idle RSS, stop, one warm start, stop. */
async function oneRun(externalUrl: string | undefined): Promise<Run> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'plinth-startup-'));
  const port = await freePort();
  const env: Record<string, string> = {
    PLINTH_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    EMBEDDED_PG_PORT: String(await freePort()),
    FUNCTIONS_RUNTIME_PORT: String(await freePort()),
    PLINTH_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    ADMIN_PASSWORD: randomBytes(12).toString('hex'),
  };
  let database: string | undefined;
  if (externalUrl) {
    database = `plinth_startup_${randomBytes(4).toString('hex')}`;
    const admin = postgres(externalUrl, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${database}`);
    await admin.end();
    const url = new URL(externalUrl);
    url.pathname = `/${database}`;
    env.DATABASE_URL = url.toString();
  }
  try {
    const cold = await startServer(env, port);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const idleRssMb = rssMb(cold.child.pid as number);
    await stopServer(cold.child);
    const warm = await startServer(env, port);
    await stopServer(warm.child);
    return { coldMs: cold.readyMs, warmMs: warm.readyMs, idleRssMb };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
    if (externalUrl && database) {
      const admin = postgres(externalUrl, { max: 1, onnotice: () => {} });
      await admin.unsafe(`drop database if exists ${database} with (force)`);
      await admin.end();
    }
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const verdict = (value: number, target: number) => (value <= target ? 'met' : 'not met');

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 3);
  const externalUrl = process.env.DATABASE_URL;
  const results: Run[] = [];
  for (let i = 0; i < runs; i++) {
    const run = await oneRun(externalUrl);
    console.error(
      `run ${i + 1}: cold ${run.coldMs.toFixed(0)} ms, restart ${run.warmMs.toFixed(0)} ms, idle RSS ${run.idleRssMb.toFixed(1)} MB`,
    );
    results.push(run);
  }
  const cold = median(results.map((r) => r.coldMs));
  const warm = median(results.map((r) => r.warmMs));
  const rss = median(results.map((r) => r.idleRssMb));
  const all = (pick: (r: Run) => number, digits: number) => results.map((r) => pick(r).toFixed(digits)).join(' / ');
  console.log(
    `Start-up of node ${START_FLAGS.join(' ')} dist/main.js (${externalUrl ? 'fresh database on DATABASE_URL' : 'embedded PostgreSQL, fresh data dir'}), median of ${runs}:`,
  );
  console.log(`| measure | median | runs | target |`);
  console.log(`| --- | --- | --- | --- |`);
  console.log(
    `| idle RSS of the server process | ${rss.toFixed(1)} MB | ${all((r) => r.idleRssMb, 1)} | ≤ ${TARGETS.idleRssMb} MB: ${verdict(rss, TARGETS.idleRssMb)} |`,
  );
  console.log(
    `| cold start with database init, until ready | ${cold.toFixed(0)} ms | ${all((r) => r.coldMs, 0)} | ≤ ${TARGETS.coldMs} ms: ${verdict(cold, TARGETS.coldMs)} |`,
  );
  console.log(
    `| restart on the same data, until ready | ${warm.toFixed(0)} ms | ${all((r) => r.warmMs, 0)} | ≤ ${TARGETS.warmMs} ms: ${verdict(warm, TARGETS.warmMs)} |`,
  );
}

await main();
