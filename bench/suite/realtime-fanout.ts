// `npx tsx bench/suite/realtime-fanout.ts`: one publish fanned out to 1,000 subscribed clients, on
// Plinth (publish = RLS-checked INSERT, NOTIFY, load, emit) and on a bare socket.io server doing
// the same fan-out without permission checks or a database. Prints delivery p50/p99 of single
// publishes, deliveries per second of a burst, their ratio, and memory per idle connection.
// Clients live in a child process (bench/workers/realtime-clients.ts). Asserts nothing.
import { fork, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Server } from 'socket.io';
import { freePort } from '../../test/harness/free-port.js';
import { startBenchDatabase } from '../lib/environment.js';
import { startPlinth } from '../lib/plinth.js';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const BURST = Number(process.env.BENCH_BURST ?? 50);
const CHANNEL = 'bench:fanout';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap and off-heap bytes of this process after a full collection. */
function memory(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

interface FanoutResult {
  latencies: number[];
  burstDeliveries: number;
  burstSeconds: number;
}

function clientProcess() {
  const child: ChildProcess = fork(path.join(import.meta.dirname, '../workers/realtime-clients.ts'), {
    execArgv: ['--import', 'tsx'],
  });
  const ask = <T>(command: object): Promise<T> =>
    new Promise((resolve, reject) => {
      child.once('message', (reply: { error?: string }) =>
        reply.error ? reject(new Error(reply.error)) : resolve(reply as T),
      );
      child.send(command);
    });
  return { ask, child };
}

async function measure(name: string, url: string, token: string, awaitPresence: boolean) {
  const clients = clientProcess();
  await clients.ask({ cmd: 'connect', url, token, clients: CLIENTS, channel: CHANNEL, awaitPresence });
  const idle = memory();
  const result = await clients.ask<FanoutResult>({ cmd: 'fanout', channel: CHANNEL, rounds: ROUNDS, burst: BURST });
  await clients.ask({ cmd: 'close' });
  // Idle memory against the same server with the clients gone (one-time allocations excluded).
  await new Promise((resolve) => clients.child.once('exit', resolve));
  await new Promise((resolve) => setTimeout(resolve, 500));
  const after = memory();
  const summary = {
    name,
    p50: percentile(result.latencies, 50),
    p99: percentile(result.latencies, 99),
    deliveriesPerSecond: result.burstDeliveries / result.burstSeconds,
    bytesPerIdleConnection: (idle - after) / CLIENTS,
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
          channel: `realtime:${body.channel}`,
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
    return await measure('bare socket.io', bare.url, 'none', false);
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
    await plinth.deps.sql`insert into realtime.channels (pattern) values ('bench:%')`;
    result = await measure('Plinth', plinth.url, plinth.keys.anonKey, true);
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
