// Faults done to the server's processes and connections, as measurements (no assertions): the
// tests assert on them in a short form, bench/suite/fault-report.ts prints them from a longer form.
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import postgres from 'postgres';
import { databaseUrlOf, pollUntil, type Exit, type ServerProcess } from '../harness/server-process.js';
import {
  BUCKET,
  DEADLINES,
  HANG_MS,
  RECOVERY_BOUND_MS,
  anonHeaders,
  apiKeyHeaders,
  recoveryMs,
  startWriters,
  timed,
  type Outcome,
  type Tally,
} from './workload.js';

export interface FaultResult {
  /** How many times the fault was applied. */
  faults: number;
  tally: Tally;
  /** ms from the last fault to the first normal answer (insert 2xx + ready 200), or why not. */
  recovery: number | string;
  /** The server's exit, null when it lives. */
  exit: Exit | null;
}

const recover = (s: ServerProcess, since: number, bound: number) =>
  s.exit() ? Promise.resolve('the server exited') : recoveryMs(s, since, bound).catch((err: Error) => err.message);

/** Terminates every other client backend of the server's database (never another database's). */
async function terminateBackends(admin: postgres.Sql): Promise<number> {
  const rows = await admin`
    select pg_terminate_backend(pid) as done from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'`;
  return rows.filter((r) => r.done).length;
}

/** Inserts and uploads from `clients` loops while the server's backends are terminated `rounds` times. */
export async function backendsTerminated(
  s: ServerProcess,
  options: { clients: number; rounds: number },
): Promise<FaultResult & { terminated: number }> {
  const admin = postgres(databaseUrlOf(s), { max: 1, onnotice: () => {} });
  const writers = startWriters(s, { clients: options.clients, uploadEvery: 4 });
  let terminated = 0;
  let faults = 0;
  let last = Date.now();
  try {
    await pollUntil('acknowledged writes', 15_000, () =>
      writers.tally.acknowledgedRows.size >= 50 || s.exit() ? true : undefined,
    );
    for (; faults < options.rounds && !s.exit(); faults++) {
      terminated += await terminateBackends(admin);
      last = Date.now();
      // The next round once the writers have gone through the broken connections.
      const seen = writers.tally.outcomes.length;
      await pollUntil('requests after the fault', 15_000, () =>
        writers.tally.outcomes.length >= seen + 2 * options.clients || s.exit() ? true : undefined,
      );
    }
  } finally {
    await admin.end();
  }
  const recovery = await recover(s, last, RECOVERY_BOUND_MS);
  return { faults, terminated, tally: await writers.stop(), recovery, exit: s.exit() };
}

/** kill -9 of the embedded postmaster under inserts and uploads. */
export async function postmasterKilled(
  s: ServerProcess,
  options: { clients: number; rounds: number; boundMs: number },
): Promise<FaultResult & { recoveries: (number | string)[] }> {
  const writers = startWriters(s, { clients: options.clients, uploadEvery: 4 });
  await pollUntil('acknowledged writes', 15_000, () =>
    writers.tally.acknowledgedRows.size >= 50 || s.exit() ? true : undefined,
  );
  const recoveries: (number | string)[] = [];
  let faults = 0;
  for (; faults < options.rounds && !s.exit(); faults++) {
    const pid = s.postmasterPid();
    if (pid === null) throw new Error('no postmaster.pid in the data directory');
    process.kill(pid, 'SIGKILL');
    recoveries.push(await recover(s, Date.now(), options.boundMs));
    if (typeof recoveries.at(-1) === 'string') break;
  }
  return { faults, recoveries, recovery: recoveries.at(-1) ?? 'no fault', tally: await writers.stop(), exit: s.exit() };
}

/** kill -9 of the Deno runtime (a child of the server) while `clients` loops invoke a function. */
export async function runtimeKilled(
  s: ServerProcess,
  options: { clients: number; rounds: number },
): Promise<{ faults: number; outcomes: Outcome[]; recovery: number | string; exit: Exit | null }> {
  const deploy = await fetch(`${s.baseUrl}/api/functions`, {
    method: 'POST',
    headers: { ...apiKeyHeaders(s), 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'echo', slug: 'echo', code: 'export default () => new Response("ok");' }),
  });
  if (deploy.status !== 201) throw new Error(`deploy: ${deploy.status} ${await deploy.text()}`);
  const invoke = () => timed(`${s.baseUrl}/functions/echo`, { method: 'POST', headers: anonHeaders(s) });
  await pollUntil(
    'the function answering',
    30_000,
    async () => ((await invoke()).status === 200 ? true : undefined),
    200,
  );
  const outcomes: Outcome[] = [];
  let running = true;
  const loops = Array.from({ length: options.clients }, async () => {
    while (running && !s.exit()) outcomes.push(await invoke());
  });
  let killedAt = Date.now();
  let faults = 0;
  let recovery: number | string = 'no fault';
  for (; faults < options.rounds && !s.exit(); faults++) {
    const deno = await pollUntil('the Deno child process', RECOVERY_BOUND_MS, () =>
      s.children().find((c) => c.command.includes('deno')),
    );
    process.kill(deno.pid, 'SIGKILL');
    killedAt = Date.now();
    recovery = await pollUntil('a function answering again', RECOVERY_BOUND_MS, async () =>
      s.exit() ? 'the server exited' : (await invoke()).status === 200 ? Date.now() - killedAt : undefined,
    ).catch((err: Error) => err.message);
  }
  running = false;
  await Promise.all(loops);
  return { faults, outcomes, recovery, exit: s.exit() };
}

interface SlowUpload {
  key: string;
  sha: string;
  chunksSent: number;
  /** The answer's status (0: the connection was cut, -1: no answer in time). */
  done: Promise<{ status: number; body: string }>;
}

/** PUTs `chunks` chunks of 8 KB, one every `paceMs`, the way a slow mobile client does. */
function slowUpload(s: ServerProcess, key: string, chunks: number, paceMs: number): SlowUpload {
  const parts = Array.from({ length: chunks }, () => randomBytes(8 * 1024));
  const upload: SlowUpload = {
    key,
    sha: createHash('sha256').update(Buffer.concat(parts)).digest('hex'),
    chunksSent: 0,
    done: Promise.resolve({ status: 0, body: '' }),
  };
  upload.done = new Promise((resolve) => {
    const req = http.request(`${s.baseUrl}/api/storage/buckets/${BUCKET}/objects/${key}`, {
      method: 'PUT',
      headers: {
        ...apiKeyHeaders(s),
        'content-type': 'application/octet-stream',
        'content-length': String(chunks * 8 * 1024),
      },
      timeout: HANG_MS,
    });
    let timer: NodeJS.Timeout | undefined;
    const finish = (status: number, body: string) => {
      clearInterval(timer);
      resolve({ status, body });
    };
    req.on('response', (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => finish(res.statusCode ?? 0, body));
      res.on('error', () => finish(0, body));
    });
    req.on('timeout', () => {
      req.destroy();
      finish(-1, 'no answer in time');
    });
    req.on('error', (err) => finish(0, String(err)));
    timer = setInterval(() => {
      req.write(parts[upload.chunksSent++]);
      if (upload.chunksSent === chunks) {
        clearInterval(timer);
        req.end();
      }
    }, paceMs);
  });
  return upload;
}

export interface ShutdownResult {
  exit: Exit | null;
  /** ms from SIGTERM to the process's exit. */
  exitMs: number;
  uploads: { key: string; sha: string; status: number; body: string }[];
  tally: Tally;
}

/** SIGTERM while `uploads` slow uploads (~2 s each) stream and `clients` loops insert. */
export async function sigtermDuringUploads(
  s: ServerProcess,
  options: { clients: number; uploads: number },
): Promise<ShutdownResult> {
  const graceMs = Number(s.env.SHUTDOWN_GRACE_MS ?? DEADLINES.SHUTDOWN_GRACE_MS);
  const writers = startWriters(s, { clients: options.clients, uploadEvery: 5 });
  await pollUntil('acknowledged writes', 15_000, () => (writers.tally.acknowledgedRows.size >= 20 ? true : undefined));
  const uploads = Array.from({ length: options.uploads }, (_, i) => slowUpload(s, `slow-${i}.bin`, 16, 125));
  await pollUntil('the uploads under way', 15_000, () => (uploads.every((u) => u.chunksSent >= 3) ? true : undefined));
  const signalled = Date.now();
  s.signal('SIGTERM');
  const exit = await Promise.race([
    s.exited,
    new Promise<null>((resolve) => setTimeout(() => resolve(null), graceMs + 5_000)),
  ]);
  const exitMs = Date.now() - signalled;
  const answers = await Promise.all(uploads.map((u) => u.done));
  return {
    exit,
    exitMs,
    uploads: uploads.map((u, i) => ({ key: u.key, sha: u.sha, ...answers[i]! })),
    tally: await writers.stop(),
  };
}
