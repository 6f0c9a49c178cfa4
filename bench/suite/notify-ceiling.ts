// `npm run bench:notify`: notifying commits per second through the realtime publish path (a message
// published on a socket: its INSERT and pg_notify in one transaction, LISTEN, delivery), with 1, 10
// and 100 listening sockets, and the end-to-end latency (send → arrival at each listener) p50/p99
// under that load. PUBLISHERS sockets (default 8) keep WINDOW (2) messages each in flight; a
// message is committed once its publisher hears it back.
// Plinth runs as users run it (bench/lib/plinth.ts: the compiled server, dist/main.js with npm
// start's flags, in its own process, default settings with request logging on) on an embedded
// PostgreSQL of the bench's; the sockets are in a child process (bench/workers/notify-clients.ts).
// Only the realtime event budgets are lifted (bench/lib/realtime-ceiling.ts). CPU per commit and per
// delivery: the server's from /proc/<pid>/stat, PostgreSQL's from its postmaster and backends.
// Another path runs with the server's settings passed through: REALTIME_BUS_URL, REALTIME_BUS_PREFIX,
// REALTIME_CHANGES and DATABASE_DIRECT_URL / DATABASE_POOLER are handed on when set (with
// REALTIME_CHANGES=logical the bench's cluster starts with wal_level=logical), and NOTIFY_BENCH_ENV
// adds any more ("KEY=value,KEY2=value"). NOTIFY_BENCH_SECONDS (default 8 per listener count),
// NOTIFY_BENCH_PUBLISHERS, NOTIFY_BENCH_WINDOW, NOTIFY_BENCH_LISTENERS (default 1,10,100).
// Asserts nothing; prints a Markdown table for bench/README.md.
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

const SECONDS = Number(process.env.NOTIFY_BENCH_SECONDS ?? 8);
const PUBLISHERS = Number(process.env.NOTIFY_BENCH_PUBLISHERS ?? 8);
const WINDOW = Number(process.env.NOTIFY_BENCH_WINDOW ?? 2);
const LISTENERS = (process.env.NOTIFY_BENCH_LISTENERS ?? '1,10,100').split(',').map(Number);
const CHANNEL = 'bench:notify';
const PASSED_THROUGH = [
  'REALTIME_BUS_URL',
  'REALTIME_BUS_PREFIX',
  'REALTIME_CHANGES',
  'DATABASE_DIRECT_URL',
  'DATABASE_POOLER',
];

/** The server's extra settings: the path under test. */
function serverEnv(): Record<string, string> {
  const env: Record<string, string> = { ...OPEN_REALTIME_BUDGETS };
  for (const key of PASSED_THROUGH) if (process.env[key]) env[key] = process.env[key];
  for (const pair of (process.env.NOTIFY_BENCH_ENV ?? '').split(',').filter(Boolean)) {
    const eq = pair.indexOf('=');
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

/** The broker process whose CPU is reported beside the server's, when the path has one. */
const brokerOf = (busUrl: string | undefined) =>
  busUrl?.startsWith('nats') ? 'nats-server' : busUrl?.startsWith('redis') ? 'redis-server' : undefined;

async function main() {
  const env = serverEnv();
  const path = env.REALTIME_BUS_URL ? `bus ${env.REALTIME_BUS_URL}` : 'PostgreSQL NOTIFY';
  console.log(`notify ceiling (${path}): ${PUBLISHERS} publishers × window ${WINDOW}, ${SECONDS} s per listener count`);
  console.log(`server settings beyond the defaults: ${JSON.stringify(env)}`);
  console.log(`load average before: ${loadAverage()}`);
  const db = await startBenchDatabase(env.REALTIME_CHANGES === 'logical' ? { settings: { wal_level: 'logical' } } : {});
  const plinth = await startPlinth(db.url, env);
  const clients = clientProcess('notify-clients.ts');
  const broker = brokerOf(env.REALTIME_BUS_URL);
  const rows: string[][] = [];
  try {
    await plinth.sql`insert into realtime.channels (pattern) values ('bench:%')`;
    let connected = 0;
    for (const listeners of LISTENERS) {
      // Only the listeners added since the last count connect now (the sockets stay).
      await clients.ask({
        cmd: 'connect',
        url: plinth.url,
        token: plinth.anonKey,
        channel: CHANNEL,
        listeners: listeners - connected,
        publishers: connected === 0 ? PUBLISHERS : 0,
      });
      connected = listeners;
      const { value: result, cpu } = await cpuDuring(
        { serverPids: [plinth.pid], pgDataDir: db.pgDataDir, broker },
        () =>
          clients.ask<{ committed: number; seconds: number; latencies: number[] }>({
            cmd: 'run',
            channel: CHANNEL,
            seconds: SECONDS,
            window: WINDOW,
          }),
      );
      // Every socket on the channel gets every message: the listeners and the publishers too.
      const deliveries = result.committed * (listeners + PUBLISHERS);
      const row = [
        String(listeners),
        (result.committed / result.seconds).toFixed(0),
        percentile(result.latencies, 50).toFixed(1),
        percentile(result.latencies, 99).toFixed(1),
        msPer(cpu.server, result.committed),
        msPer(cpu.server, deliveries),
        msPer(cpu.postgres, result.committed),
        ...(broker ? [msPer(cpu.broker, result.committed)] : []),
      ];
      rows.push(row);
      console.log(
        `${String(listeners).padStart(3)} listeners: ${row[1]} commits/s, latency p50 ${row[2]} ms p99 ${row[3]} ms ` +
          `(${result.latencies.length} deliveries timed); CPU ms per commit: server ${row[4]}, PostgreSQL ${row[6]}`,
      );
    }
    await clients.ask({ cmd: 'close' });
  } finally {
    clients.child.kill();
    await plinth.close();
    await db.stop();
  }
  console.log(`\n${path}, compiled server (default settings, realtime budgets lifted), ${SECONDS} s per row`);
  console.log(
    markdownTable(
      [
        'listeners',
        'commits/s',
        'p50 ms',
        'p99 ms',
        'server CPU ms/commit',
        'server CPU ms/delivery',
        'PostgreSQL CPU ms/commit',
        ...(broker ? [`${broker} CPU ms/commit`] : []),
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
