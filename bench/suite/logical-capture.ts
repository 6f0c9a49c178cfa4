// `npm run bench:logical-capture`: notifying commits per second on a watched table, and end-to-end
// delivery of its changes to 1, 10 and 100 listening sockets, through today's path (the trigger
// writes the messages and calls pg_notify inside every writing transaction) against logical change
// capture (REALTIME_CHANGES=logical: no trigger; the elected server reads the replication slot and
// publishes in batches). Each mode runs on an embedded PostgreSQL of the bench's own
// (wal_level=logical in logical mode, as the embedded database starts it for that setting), with
// Plinth as users run it (bench/lib/plinth.ts: the compiled server in its own process, default
// settings with request logging on, the realtime budgets lifted; the table watched through
// POST /api/realtime/watched-tables). A child process (bench/workers/change-clients.ts) holds the
// listening sockets (anon key, subscribed to `table:public.events`) and WRITERS connections
// committing one-row INSERTs for SECONDS per listener count; each row carries its send time, so
// latency is INSERT sent → INSERT event at a listener. Figures: the writers' commits/s; how long
// after the writers stopped every listener had every change; changes delivered per second end to
// end (commits over writing + catching up); latency p50/p99; CPU per commit and per delivery (the
// server's from /proc/<pid>/stat, PostgreSQL's from its postmaster and backends).
// BENCH_SECONDS (default 10), BENCH_WRITERS (16), BENCH_LISTENERS (1,10,100),
// BENCH_MODES=triggers,logical (default both), BENCH_CATCH_UP_TIMEOUT (120 s), BENCH_RATE (commits/s
// offered in all, evenly spaced, for latency below every path's ceiling; default: as fast as the
// writers can). Asserts nothing;
// prints a Markdown table.
import { startBenchDatabase } from '../lib/environment.js';
import { startPlinth } from '../lib/plinth.js';
import {
  cpuDuring,
  loadAverage,
  markdownTable,
  msPer,
  OPEN_REALTIME_BUDGETS,
  percentile,
} from '../lib/realtime-ceiling.js';
import { clientProcess } from '../lib/worker-ipc.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WRITERS = Number(process.env.BENCH_WRITERS ?? 16);
const LISTENERS = (process.env.BENCH_LISTENERS ?? '1,10,100').split(',').map(Number);
const MODES = (process.env.BENCH_MODES ?? 'triggers,logical').split(',') as ('triggers' | 'logical')[];
const CATCH_UP_TIMEOUT = Number(process.env.BENCH_CATCH_UP_TIMEOUT ?? 120);
const RATE = process.env.BENCH_RATE ? Number(process.env.BENCH_RATE) : undefined;
const TABLE = 'public.events';
const CHANNEL = `table:${TABLE}`;

interface RunResult {
  commits: number;
  writeSeconds: number;
  catchUpSeconds: number;
  deliveriesExpected: number;
  deliveriesArrived: number;
  latencies: number[];
}

async function waitFor(what: string, check: () => Promise<boolean>, seconds = 60): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${seconds} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function runMode(mode: 'triggers' | 'logical', rows: string[][]): Promise<void> {
  const db = await startBenchDatabase(mode === 'logical' ? { settings: { wal_level: 'logical' } } : {});
  const plinth = await startPlinth(db.url, { ...OPEN_REALTIME_BUDGETS, REALTIME_CHANGES: mode });
  const clients = clientProcess('change-clients.ts');
  try {
    // New tables get row-level security on: the listeners (anon) may read every row.
    await plinth.sql.unsafe(`create table ${TABLE} (id bigserial primary key, body text not null);
      create policy events_read on ${TABLE} for select to anon using (true);
      grant select on ${TABLE} to anon;`);
    const watched = await fetch(`${plinth.url}/api/realtime/watched-tables`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': plinth.apiKey },
      body: JSON.stringify({ table: TABLE }),
    });
    if (!watched.ok) throw new Error(`watching ${TABLE}: ${watched.status} ${await watched.text()}`);
    if (mode === 'logical') {
      // The elected server has created the slot, reads it, and has switched the database over.
      await waitFor('logical capture running', async () => {
        const [slot] = await plinth.sql<
          { active: boolean }[]
        >`select bool_or(active) as active from pg_replication_slots`;
        const [capture] = await plinth.sql<{ mode: string }[]>`select mode from realtime.change_capture`;
        return slot?.active === true && capture?.mode === 'logical';
      });
    }
    let connected = 0;
    for (const listeners of LISTENERS) {
      await clients.ask({
        cmd: 'connect',
        url: plinth.url,
        token: plinth.anonKey,
        channel: CHANNEL,
        listeners: listeners - connected,
      });
      connected = listeners;
      const { value: r, cpu } = await cpuDuring({ serverPids: [plinth.pid], pgDataDir: db.pgDataDir }, () =>
        clients.ask<RunResult>({
          cmd: 'run',
          databaseUrl: db.url,
          table: TABLE,
          writers: WRITERS,
          seconds: SECONDS,
          catchUpTimeoutSeconds: CATCH_UP_TIMEOUT,
          rate: RATE,
        }),
      );
      const missing = r.deliveriesExpected - r.deliveriesArrived;
      const row = [
        mode === 'triggers' ? 'triggers + NOTIFY' : 'logical capture',
        String(listeners),
        (r.commits / r.writeSeconds).toFixed(0),
        r.catchUpSeconds.toFixed(2),
        (r.commits / (r.writeSeconds + r.catchUpSeconds)).toFixed(0),
        percentile(r.latencies, 50).toFixed(1),
        percentile(r.latencies, 99).toFixed(1),
        msPer(cpu.server, r.commits),
        msPer(cpu.server, r.deliveriesArrived),
        msPer(cpu.postgres, r.commits),
        String(Math.max(0, missing)),
      ];
      rows.push(row);
      console.log(
        `${row[0]!.padEnd(17)} ${row[1]!.padStart(3)} listeners: ${row[2]} commits/s, caught up ${row[3]} s after, ` +
          `${row[4]} delivered/s end to end, p50 ${row[5]} ms p99 ${row[6]} ms; CPU ms/commit server ${row[7]} PostgreSQL ${row[9]}` +
          (missing > 0 ? `; ${missing} deliveries missing after ${CATCH_UP_TIMEOUT} s` : ''),
      );
    }
    await clients.ask({ cmd: 'close' });
  } finally {
    clients.child.kill();
    await plinth.close();
    await db.stop();
  }
}

async function main() {
  console.log(
    `logical capture: ${WRITERS} writers committing one-row INSERTs ${RATE ? `at ${RATE} commits/s in all` : 'as fast as they can'} for ${SECONDS} s per listener count (${LISTENERS.join('/')})`,
  );
  console.log(`load average before: ${loadAverage()}`);
  const rows: string[][] = [];
  for (const mode of MODES) await runMode(mode, rows);
  console.log(
    `\nwatched-table changes, compiled server (default settings, realtime budgets lifted), ${WRITERS} writers${RATE ? ` offered ${RATE} commits/s` : ''}, ${SECONDS} s per row`,
  );
  console.log(
    markdownTable(
      [
        'path',
        'listeners',
        "writers' commits/s",
        'caught up after s',
        'delivered/s end to end',
        'p50 ms',
        'p99 ms',
        'server CPU ms/commit',
        'server CPU ms/delivery',
        'PostgreSQL CPU ms/commit',
        'missing',
      ],
      rows,
    ),
  );
  console.log(`load average after: ${loadAverage()}`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
