// The documented start command, `npm start`, signalled as a supervisor does (systemd, a container
// runtime with npm as PID 1): SIGTERM or SIGINT to the npm process reaches Plinth, which drains the
// request in flight, and npm and Plinth both end — no server left serving without its supervisor.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../harness/free-port.js';
import { isAlive, pollUntil, waitReady } from '../../harness/server-process.js';
import { createDatabase, TEST_ADMIN, TEST_ENCRYPTION_KEY } from '../../harness/test-database.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface NpmStart {
  npm: ChildProcess;
  /** The Plinth server process npm started (`node … dist/main.js`). */
  serverPid: number;
  port: number;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

/** The descendants of `pid` (from /proc), nearest first. */
function descendants(pid: number): number[] {
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const at = queue.shift()!;
    let children: number[] = [];
    try {
      children = readFileSync(`/proc/${at}/task/${at}/children`, 'utf8')
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .map(Number);
    } catch {
      // exited meanwhile
    }
    found.push(...children);
    queue.push(...children);
  }
  return found;
}

const commandOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
};

async function npmStart(): Promise<NpmStart> {
  const port = await freePort();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'plinth-npm-start-'));
  const npm = spawn('npm', ['start'], {
    cwd: ROOT,
    // A group of its own so the cleanup reaches whatever is left; the test signals npm alone.
    detached: true,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATABASE_URL: await createDatabase(),
      PORT: String(port),
      HOST: '127.0.0.1',
      FUNCTIONS_RUNTIME_PORT: String(await freePort()),
      PLINTH_DATA_DIR: dataDir,
      PLINTH_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      ADMIN_EMAIL: TEST_ADMIN.email,
      ADMIN_PASSWORD: TEST_ADMIN.password,
      LOG_LEVEL: 'info',
      SHUTDOWN_GRACE_MS: '20000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  npm.stdout!.on('data', (d) => (out += d));
  npm.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    npm.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let serverPid = 0;
  cleanups.push(async () => {
    for (const pid of [npm.pid!, serverPid])
      try {
        if (pid && isAlive(pid)) process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    await rm(dataDir, { recursive: true, force: true, maxRetries: 5 });
  });
  await pollUntil('Plinth to be listening', 60_000, () => {
    if (npm.exitCode !== null) throw new Error(`npm start exited:\n${out}`);
    return out.includes('Plinth is listening');
  });
  await waitReady({ baseUrl: `http://127.0.0.1:${port}`, exit: () => null, output: () => out }, 30_000);
  // node itself, not a `sh -c "node … dist/main.js"` between npm and it.
  serverPid = descendants(npm.pid!).find((pid) => /^\S*node .*dist\/main\.js/.test(commandOf(pid))) ?? 0;
  expect(serverPid, out).toBeGreaterThan(0);
  return { npm, serverPid, port, output: () => out, exited };
}

/** A slow upload: the first half is on the wire when `started` resolves; `finish()` sends the rest. */
async function slowUpload(port: number, apiKey: string) {
  const half = Buffer.alloc(64 * 1024, 'a');
  let finish: () => void = () => {};
  let started: () => void = () => {};
  const firstHalfSent = new Promise<void>((resolve) => (started = resolve));
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/storage/buckets/uploads/objects',
        headers: {
          'x-api-key': apiKey,
          'content-type': 'application/octet-stream',
          'content-length': half.length * 2,
          expect: '100-continue',
        },
      },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    finish = () => req.end(half);
    // 100 Continue: the server has taken the request (a request that arrives once the stop has
    // begun is refused with 503), so the signal comes while it is in flight, not before it.
    req.once('continue', () => req.write(half, () => started()));
    req.flushHeaders();
  });
  answer.catch(() => {}); // awaited by the test; a server killed in the cleanup must not fail the file
  await firstHalfSent;
  return { answer, finish };
}

describe('npm start', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s to the npm process drains the upload in flight, then npm and the server both exit',
    async (signal) => {
      const s = await npmStart();
      const apiKey = /API key:\s+(\w+)/.exec(s.output())?.[1] ?? '';
      const bucket = await fetch(`http://127.0.0.1:${s.port}/api/storage/buckets`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ bucketName: 'uploads', isPublic: false }),
      });
      expect(bucket.status, await bucket.clone().text()).toBe(201);

      const upload = await slowUpload(s.port, apiKey);
      process.kill(s.npm.pid!, signal);
      // Plinth heard it: it is draining (not serving on as an orphan) while the upload still streams.
      await pollUntil('Plinth to start draining', 10_000, () => s.output().includes('shutting down'));
      upload.finish();

      const uploaded = await upload.answer;
      expect(uploaded.status, uploaded.body).toBe(201);
      expect(await s.exited, s.output().slice(-2000)).toEqual({ code: 0, signal: null });
      await pollUntil('the server process to end', 5_000, () => !isAlive(s.serverPid));
    },
    90_000,
  );
});
