// `npx tsx bench/suite/fault-report.ts [--short]`: the fault-injection suite's long form against real
// server processes on their embedded PostgreSQL, printed as the numbers README's Reliability
// section quotes: faults survived, recovery times, writes acknowledged/lost, floods held.
import { startServerProcess, type ServerProcess } from '../../test/harness/server-process.js';
import {
  FLOOD_FILE_LIMIT,
  FLOOD_MAX_CONNECTIONS,
  FLOOD_POOL,
  FORMS,
  REGEX_REPEATS,
  type Form,
} from '../../test/fault/forms.js';
import {
  backendsTerminated,
  postmasterKilled,
  runtimeKilled,
  sigtermDuringUploads,
} from '../../test/fault/process-faults.js';
import { connectionFlood, hostileBodies, regexFlood, type FloodResult } from '../../test/fault/public-faults.js';
import {
  DEADLINES,
  EMBEDDED_RECOVERY_BOUND_MS,
  createFixtures,
  lostWrites,
  percentile,
  timed,
  type Tally,
} from '../../test/fault/workload.js';

interface Row {
  fault: string;
  faults: number;
  survived: string;
  hangs: number;
  recovery: string;
  writes: string;
  notes: string;
}

const ms = (v: number | string | undefined) => (typeof v === 'number' ? `${Math.round(v)} ms` : String(v ?? '—'));
const q = (values: number[]) =>
  `p50 ${Math.round(percentile(values, 50))} / p99 ${Math.round(percentile(values, 99))} ms`;

async function writesOf(s: ServerProcess, tally: Tally): Promise<string> {
  const acknowledged = tally.acknowledgedRows.size + tally.acknowledgedObjects.size;
  if (s.exit()) return `${acknowledged} acknowledged, not checked (server gone)`;
  try {
    const lost = await lostWrites(s, tally);
    return `${acknowledged} acknowledged, ${lost.rows.length + lost.objects.length} lost`;
  } catch (err) {
    return `${acknowledged} acknowledged, not checked (${(err as Error).message.slice(0, 80)})`;
  }
}

/** Whether the server lives; when it died, its last output goes to stderr for the post-mortem. */
function survived(s: ServerProcess): string {
  if (!s.exit()) return 'yes';
  console.error(`--- the server exited ${JSON.stringify(s.exit())}; its last output:\n${s.output().slice(-4000)}\n---`);
  return `no (exit ${JSON.stringify(s.exit())})`;
}

/** The same server while it lives and is ready; else (killed or wedged by a fault) a new one. */
async function usable(s: ServerProcess, start: () => Promise<ServerProcess>): Promise<ServerProcess> {
  if (!s.exit() && (await timed(`${s.baseUrl}/api/health/ready`, {}, 5_000)).status === 200) return s;
  await s.close();
  return start();
}

async function fresh(env: Record<string, string> = {}, fileLimit?: number): Promise<ServerProcess> {
  const s = await startServerProcess({ env: { ...DEADLINES, ...env }, fileLimit, readyTimeoutMs: 120_000 });
  await createFixtures(s);
  return s;
}

async function databaseFaults(form: Form, rows: Row[]): Promise<void> {
  let s = await fresh({ DB_POOL_SIZE: '8' });
  try {
    const terminated = await backendsTerminated(s, { clients: form.writers, rounds: form.terminateRounds });
    const failed = terminated.tally.outcomes.filter((o) => o.status < 200 || o.status >= 300);
    rows.push({
      fault: 'backends terminated (pg_terminate_backend)',
      faults: terminated.faults,
      survived: survived(s),
      hangs: terminated.tally.hangs,
      recovery: ms(terminated.recovery),
      writes: await writesOf(s, terminated.tally),
      notes: `${failed.length} refused, statuses ${JSON.stringify(terminated.tally.statuses())}`,
    });
    s = await usable(s, () => fresh({ DB_POOL_SIZE: '8' }));
    const runtime = await runtimeKilled(s, { clients: 8, rounds: form.runtimeKills });
    rows.push({
      fault: 'Deno runtime killed -9',
      faults: runtime.faults,
      survived: survived(s),
      hangs: runtime.outcomes.filter((o) => o.status === -1).length,
      recovery: ms(runtime.recovery),
      writes: '—',
      notes: `${runtime.outcomes.length} invocations`,
    });
    s = await usable(s, () => fresh({ DB_POOL_SIZE: '8' }));
    const postmaster = await postmasterKilled(s, {
      clients: form.writers,
      rounds: form.postmasterKills,
      boundMs: EMBEDDED_RECOVERY_BOUND_MS,
    });
    rows.push({
      fault: 'embedded postmaster killed -9',
      faults: postmaster.faults,
      survived: survived(s),
      hangs: postmaster.tally.hangs,
      recovery: postmaster.recoveries.map(ms).join(', '),
      writes: await writesOf(s, postmaster.tally),
      notes: `statuses ${JSON.stringify(postmaster.tally.statuses())}`,
    });
  } finally {
    await s.close();
  }
}

function floodRow(fault: string, s: ServerProcess, result: FloodResult, notes: string): Row {
  const statuses = result.during.map((o) => o.status);
  return {
    fault,
    faults: 1,
    survived: survived(s),
    hangs: statuses.filter((x) => x === -1).length,
    recovery: '—',
    writes: '—',
    notes: `normal reads unloaded ${q(result.unloaded)}, during ${q(result.during.map((o) => o.ms))} (${statuses.filter((x) => x !== 200).length} not 200); ${notes}`,
  };
}

async function publicFaults(form: Form, rows: Row[]): Promise<void> {
  const env = {
    DB_POOL_SIZE: String(FLOOD_POOL),
    DB_POOL_QUEUE_MAX: '1000',
    MAX_CONNECTIONS: String(FLOOD_MAX_CONNECTIONS),
  };
  let s = await fresh(env, FLOOD_FILE_LIMIT);
  try {
    const hostile = await hostileBodies(s, { rounds: form.hostileRounds, depth: 5000 });
    const statuses = (list: { status: number }[]) => {
      const counts: Record<number, number> = {};
      for (const o of list) counts[o.status] = (counts[o.status] ?? 0) + 1;
      return JSON.stringify(counts);
    };
    rows.push({
      fault: 'nested JSON depth 5000 (anon)',
      faults: hostile.hostile.length,
      survived: survived(s),
      hangs: [...hostile.hostile, ...hostile.normal].filter((o) => o.status === -1).length,
      recovery: '—',
      writes: '—',
      notes: `hostile ${statuses(hostile.hostile)}, normal beside them ${statuses(hostile.normal)}`,
    });
    s = await usable(s, () => fresh(env, FLOOD_FILE_LIMIT));
    const regex = await regexFlood(s, {
      flooders: form.regexFlooders,
      windowMs: form.regexWindowMs,
      repeats: REGEX_REPEATS,
    });
    rows.push(
      floodRow(
        `regex flood (${form.regexFlooders} anon clients, pool ${FLOOD_POOL})`,
        s,
        regex,
        `flood answered ${statuses(regex.flood)}`,
      ),
    );
    s = await usable(s, () => fresh(env, FLOOD_FILE_LIMIT));
    const flood = await connectionFlood(s, { sockets: form.floodSockets, windowMs: form.floodWindowMs });
    rows.push({
      ...floodRow(
        `${form.floodSockets} idle sockets (ulimit -n ${FLOOD_FILE_LIMIT}) + runtime killed`,
        s,
        flood,
        `${flood.held} held open`,
      ),
      recovery: `new clients ${ms(flood.recovery)}, runtime ${ms(flood.runtimeBack)}`,
    });
  } finally {
    await s.close();
  }
}

async function shutdownFault(form: Form, rows: Row[]): Promise<void> {
  const s = await fresh();
  let again: ServerProcess | undefined;
  try {
    const result = await sigtermDuringUploads(s, { clients: 8, uploads: form.slowUploads });
    again = await startServerProcess({ reuse: s, readyTimeoutMs: 120_000 });
    const completed = result.uploads.filter((u) => u.status === 200).length;
    rows.push({
      fault: 'SIGTERM during slow uploads',
      faults: 1,
      survived: `exit ${JSON.stringify(result.exit)} after ${result.exitMs} ms`,
      hangs: result.tally.hangs,
      recovery: '—',
      writes: await writesOf(again, result.tally),
      notes: `${completed}/${result.uploads.length} slow uploads completed`,
    });
  } finally {
    await again?.close({ keepDataDir: true });
    await s.close();
  }
}

async function main(): Promise<void> {
  const form = process.argv.includes('--short') ? FORMS.short : FORMS.long;
  const rows: Row[] = [];
  for (const run of [databaseFaults, publicFaults, shutdownFault]) {
    try {
      await run(form, rows);
    } catch (err) {
      rows.push({
        fault: run.name,
        faults: 0,
        survived: 'could not run',
        hangs: 0,
        recovery: '—',
        writes: '—',
        notes: String((err as Error).message).slice(0, 300),
      });
    }
  }
  console.log(
    `\nFault injection (${form === FORMS.short ? 'short' : 'long'} form), deadlines ${JSON.stringify(DEADLINES)}\n`,
  );
  console.log('| fault | times | process lived | hangs | recovery (fault → first 2xx) | writes | notes |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(`| ${r.fault} | ${r.faults} | ${r.survived} | ${r.hangs} | ${r.recovery} | ${r.writes} | ${r.notes} |`);
}

await main();
