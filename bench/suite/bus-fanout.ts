// `npm run bench:bus`: notifying commits per second and end-to-end delivery latency of realtime
// publishes through each bus engine — PostgreSQL NOTIFY (today's default: pg_notify inside the
// writing transaction), NATS (JetStream) and Redis pub/sub (REALTIME_BUS_URL: publish after commit)
// — with 1, 10 and 100 listening sockets. Each publish is one committed INSERT into
// realtime.messages (RLS-checked) announced on the bus; after ROUNDS single publishes (warming the
// path), a burst of BURST publishes is emitted at once by one socket, and the run ends when every
// listener has every message: commits/s is BURST / that time, latency is emit → arrival per message
// per listener. CPU per commit and per delivery over the whole fan-out command (single publishes
// and burst): the server's from /proc/<pid>/stat, PostgreSQL's from its postmaster and backends,
// the broker's from the machine's nats-server / redis-server processes (shared with anything else
// that uses them: read it on a quiet machine). Brokers: the machine's NATS (BENCH_NATS_URL, default
// nats://127.0.0.1:4222) and Redis (BENCH_REDIS_URL), under a prefix of this run.
// Plinth runs as users run it (bench/lib/plinth.ts: the compiled server in its own process, default
// settings with request logging on, the realtime budgets lifted), one server per engine started one
// after the other on the run's database; clients in a child process
// (bench/workers/realtime-clients.ts). BENCH_BURST (default 2000), BENCH_LISTENERS (1,10,100),
// BENCH_ENGINES=postgres,nats,redis (default all). Asserts nothing; prints a Markdown table.
import { randomBytes } from 'node:crypto';
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

const BURST = Number(process.env.BENCH_BURST ?? 2000);
const LISTENERS = (process.env.BENCH_LISTENERS ?? '1,10,100').split(',').map(Number);
const ENGINES: Record<string, string | undefined> = {
  postgres: undefined,
  nats: process.env.BENCH_NATS_URL ?? 'nats://127.0.0.1:4222',
  redis: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
};
const ONLY = process.env.BENCH_ENGINES?.split(',');

const ROUNDS = 20;
const BROKERS: Record<string, string> = { nats: 'nats-server', redis: 'redis-server' };

interface Cpu {
  serverPids: number[];
  pgDataDir: string;
  broker?: string;
}

async function measure(url: string, token: string, listeners: number, channel: string, cpuOf: Cpu) {
  const clients = clientProcess('realtime-clients.ts');
  const exited = new Promise((resolve) => clients.child.once('exit', resolve));
  await clients.ask({ cmd: 'connect', url, token, clients: listeners, channel, awaitPresence: true });
  const { value: result, cpu } = await cpuDuring(cpuOf, () =>
    clients.ask<{ burstLatencies: number[]; burstSeconds: number }>({
      cmd: 'fanout',
      channel,
      rounds: ROUNDS,
      burst: BURST,
    }),
  );
  await clients.ask({ cmd: 'close' });
  await exited;
  const commits = ROUNDS + BURST;
  return {
    commitsPerSecond: BURST / result.burstSeconds,
    p50: percentile(result.burstLatencies, 50),
    p99: percentile(result.burstLatencies, 99),
    serverPerCommit: msPer(cpu.server, commits),
    serverPerDelivery: msPer(cpu.server, commits * listeners),
    postgresPerCommit: msPer(cpu.postgres, commits),
    brokerPerCommit: cpuOf.broker ? msPer(cpu.broker, commits) : '–',
  };
}

async function main() {
  console.log(`bus fan-out: bursts of ${BURST} publishes from one socket, listeners ${LISTENERS.join('/')}`);
  console.log(`load average before: ${loadAverage()}`);
  const db = await startBenchDatabase();
  const prefix = `bench${randomBytes(3).toString('hex')}`;
  // One key for the servers started one after the other on the run's database.
  const encryptionKey = randomBytes(32).toString('hex');
  const rows: string[][] = [];
  try {
    for (const [engine, url] of Object.entries(ENGINES)) {
      if (ONLY && !ONLY.includes(engine)) continue;
      const plinth = await startPlinth(db.url, {
        ...OPEN_REALTIME_BUDGETS,
        PLINTH_ENCRYPTION_KEY: encryptionKey,
        ...(url ? { REALTIME_BUS_URL: url, REALTIME_BUS_PREFIX: prefix } : {}),
      });
      try {
        await plinth.sql`insert into realtime.channels (pattern) values ('bench:%') on conflict do nothing`;
        for (const listeners of LISTENERS) {
          const r = await measure(plinth.url, plinth.anonKey, listeners, `bench:${engine}-${listeners}`, {
            serverPids: [plinth.pid],
            pgDataDir: db.pgDataDir,
            broker: BROKERS[engine],
          });
          const row = [
            engine,
            String(listeners),
            Math.round(r.commitsPerSecond).toLocaleString('en-US'),
            r.p50.toFixed(1),
            r.p99.toFixed(1),
            r.serverPerCommit,
            r.serverPerDelivery,
            r.postgresPerCommit,
            r.brokerPerCommit,
          ];
          console.log(
            `${engine.padEnd(9)} ${row[1]!.padStart(4)} listeners  ${row[2]!.padStart(6)} commits/s  ` +
              `p50 ${row[3]} ms  p99 ${row[4]} ms  CPU ms/commit: server ${row[5]}, PostgreSQL ${row[7]}, broker ${row[8]}`,
          );
          rows.push(row);
        }
      } finally {
        await plinth.close();
      }
    }
  } finally {
    await db.stop();
  }
  console.log(`\nbus fan-out, compiled server (default settings, realtime budgets lifted), bursts of ${BURST}`);
  console.log(
    markdownTable(
      [
        'engine',
        'listeners',
        'commits/s',
        'p50 ms',
        'p99 ms',
        'server CPU ms/commit',
        'server CPU ms/delivery',
        'PostgreSQL CPU ms/commit',
        'broker CPU ms/commit',
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
