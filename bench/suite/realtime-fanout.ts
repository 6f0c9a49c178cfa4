// `npx tsx bench/suite/realtime-fanout.ts`: one publish fanned out to 1,000 subscribed clients, on
// Plinth (publish = RLS-checked INSERT, NOTIFY, load, emit) and on a bare socket.io server doing
// the same fan-out without permission checks or a database. Prints delivery p50/p99 of single
// publishes, deliveries per second of a burst, their ratio, and memory per idle connection (the
// server process's RSS with the clients connected over its RSS before they came). Plinth is the
// compiled server in its own process (bench/lib/plinth.ts); the bare server runs in this one.
// Clients live in a child process (bench/workers/realtime-clients.ts). Asserts nothing.
import { createServer } from 'node:http';
import { Server } from 'socket.io';
import { freePort } from '../../test/harness/free-port.js';
import { startBenchDatabase } from '../lib/environment.js';
import { rssBytes } from '../lib/peak-memory.js';
import { clientProcess } from '../lib/worker-ipc.js';
import { startPlinth } from '../lib/plinth.js';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const BURST = Number(process.env.BENCH_BURST ?? 50);
const CHANNEL = 'bench:fanout';

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

interface FanoutResult {
  latencies: number[];
  burstDeliveries: number;
  burstSeconds: number;
}

/** `pid`: the server's process (this one for the bare server). */
async function measure(name: string, url: string, token: string, awaitPresence: boolean, pid: number) {
  const clients = clientProcess('realtime-clients.ts');
  const before = rssBytes(pid);
  await clients.ask({ cmd: 'connect', url, token, clients: CLIENTS, channel: CHANNEL, awaitPresence });
  await new Promise((resolve) => setTimeout(resolve, 500));
  const idle = rssBytes(pid);
  const result = await clients.ask<FanoutResult>({ cmd: 'fanout', channel: CHANNEL, rounds: ROUNDS, burst: BURST });
  await clients.ask({ cmd: 'close' });
  await new Promise((resolve) => clients.child.once('exit', resolve));
  const summary = {
    name,
    p50: percentile(result.latencies, 50),
    p99: percentile(result.latencies, 99),
    deliveriesPerSecond: result.burstDeliveries / result.burstSeconds,
    bytesPerIdleConnection: (idle - before) / CLIENTS,
  };
  console.log(
    `${name.padEnd(18)} p50 ${summary.p50.toFixed(1)} ms  p99 ${summary.p99.toFixed(1)} ms  ` +
      `${Math.round(summary.deliveriesPerSecond).toLocaleString()} deliveries/s  ` +
      `${(summary.bytesPerIdleConnection / 1024).toFixed(1)} KB per idle connection`,
  );
  return summary;
}

/** The limit: socket.io alone, subscribe = join, publish = emit to the room. */
async function startBareServer() {
  const port = await freePort();
  const http = createServer();
  const io = new Server(http, { transports: ['websocket'], serveClient: false });
  io.on('connection', (socket) => {
    socket.on('realtime:subscribe', (body: { channel: string }, ack: (reply: unknown) => void) => {
      socket.join(`realtime:${body.channel}`);
      ack({ ok: true, channel: body.channel, presence: { members: [] } });
    });
    socket.on('realtime:publish', (body: { channel: string; event: string; payload: object }) => {
      io.to(`realtime:${body.channel}`).emit(body.event, {
        ...body.payload,
        meta: {
          channel: body.channel,
          messageId: 'x',
          senderType: 'user',
          timestamp: new Date().toISOString(),
        },
      });
    });
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => io.close(() => resolve())),
  };
}

async function measureBare() {
  const bare = await startBareServer();
  try {
    return await measure('bare socket.io', bare.url, 'none', false, process.pid);
  } finally {
    await bare.close();
  }
}

/** Bare, Plinth, bare again: the ratio is taken against the mean of the two bare runs (the VM is shared). */
async function main() {
  console.log(`fan-out: ${CLIENTS} clients, ${ROUNDS} single publishes, then a burst of ${BURST}`);
  const before = await measureBare();
  const db = await startBenchDatabase();
  const plinth = await startPlinth(db.url);
  let result: Awaited<ReturnType<typeof measure>>;
  try {
    await plinth.sql`insert into realtime.channels (pattern) values ('bench:%')`;
    result = await measure('Plinth', plinth.url, plinth.anonKey, true, plinth.pid);
  } finally {
    await plinth.close();
    await db.stop();
  }
  const after = await measureBare();
  const mean = (f: (r: typeof before) => number) => (f(before) + f(after)) / 2;
  console.log(
    `ratio (Plinth / mean of bare): deliveries/s ${((100 * result.deliveriesPerSecond) / mean((r) => r.deliveriesPerSecond)).toFixed(0)}%, ` +
      `p50 ${(result.p50 / mean((r) => r.p50)).toFixed(1)}×, p99 ${(result.p99 / mean((r) => r.p99)).toFixed(1)}×`,
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
