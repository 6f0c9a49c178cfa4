// `npx tsx bench/suite/realtime-latency.ts`: publish→deliver latency across two Plinth servers on one
// database (a client of server A publishes, a client of server B receives; sequential, so each
// figure is one message's trip: the RLS-checked INSERT on A in one round trip, the NOTIFY carrying
// the message, the emit on B), next to the same trip within one server. Prints p50/p99 and the CPU
// each message cost the two server processes (the compiled server, bench/lib/plinth.ts) and PostgreSQL, which a shared
// machine does not skew the way it skews latency; asserts nothing.
import { randomBytes } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import { pidCpuSeconds, postgresCpuSeconds } from '../lib/cpu.js';
import { startBenchDatabase } from '../lib/environment.js';
import { startPlinth } from '../lib/plinth.js';

const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 300);
const CHANNEL = 'bench:latency';

/** One of the two servers: the compiled server in its own process, both with one encryption key. */
const startServer = (databaseUrl: string, key: string) =>
  startPlinth(databaseUrl, {
    PLINTH_ENCRYPTION_KEY: key,
    // One socket publishes back to back: the per-socket event budget is not what is measured.
    REALTIME_SOCKET_EVENTS_PER_SECOND: '100000',
  });

async function subscribed(url: string, token: string): Promise<Socket> {
  const socket = io(url, { transports: ['websocket'], auth: { token }, reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  const ack = await socket.emitWithAck('realtime:subscribe', { channel: CHANNEL });
  if (!ack?.ok) throw new Error(`subscribe refused: ${JSON.stringify(ack)}`);
  return socket;
}

const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};

/** Sequential trips from `publisher` to `receiver`. */
async function trips(publisher: Socket, receiver: Socket): Promise<number[]> {
  const latencies: number[] = [];
  for (let seq = 0; seq < MESSAGES; seq++) {
    const started = performance.now();
    const arrived = new Promise<void>((resolve) => {
      const onMessage = (message: { seq: number }) => {
        if (message.seq !== seq) return;
        receiver.off('bench', onMessage);
        resolve();
      };
      receiver.on('bench', onMessage);
    });
    publisher.emit('realtime:publish', { channel: CHANNEL, event: 'bench', payload: { seq } });
    await arrived;
    latencies.push(performance.now() - started);
  }
  return latencies;
}

async function main() {
  const db = await startBenchDatabase();
  const key = randomBytes(32).toString('hex');
  const a = await startServer(db.url, key);
  const b = await startServer(db.url, key);
  try {
    await a.sql`insert into realtime.channels (pattern) values ('bench:%')`;
    const token = a.anonKey;
    const publisher = await subscribed(a.url, token);
    const local = await subscribed(a.url, token);
    const remote = await subscribed(b.url, token);
    await trips(publisher, remote); // warm-up
    for (const [name, receiver] of [
      ['same server', local],
      ['across servers', remote],
    ] as const) {
      const servers = async () => (await pidCpuSeconds(a.pid)) + (await pidCpuSeconds(b.pid));
      const [node0, pg0] = [await servers(), await postgresCpuSeconds(db.pgDataDir)];
      const latencies = await trips(publisher, receiver);
      const [node, pg] = [(await servers()) - node0, (await postgresCpuSeconds(db.pgDataDir)) - pg0];
      const perMessage = (seconds: number) => ((seconds * 1000) / MESSAGES).toFixed(2);
      console.log(
        `${name.padEnd(15)} publish→deliver p50 ${percentile(latencies, 50).toFixed(2)} ms  ` +
          `p99 ${percentile(latencies, 99).toFixed(2)} ms  (${MESSAGES} sequential messages); ` +
          `CPU per message: servers ${perMessage(node)} ms, PostgreSQL ${perMessage(pg)} ms`,
      );
    }
    for (const socket of [publisher, local, remote]) socket.disconnect();
  } finally {
    await a.close();
    await b.close();
    await db.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
