// Child process of bench/suite/logical-capture.ts: the sockets listening to a watched table's channel
// (socket.io-client as the official client opens them, anon key) and the writers committing one-row
// INSERTs into that table (postgres.js, as an application writing to its database), in one process
// so that send and arrival are timed on one clock. Each row's body is its send time; a listener times
// every INSERT event from that send to its arrival. Writers commit as fast as they can, or at an
// offered rate (evenly spaced commits) to time latency below every path's ceiling. Driven over IPC.
import postgres from 'postgres';
import { io, type Socket } from 'socket.io-client';

interface ConnectCommand {
  cmd: 'connect';
  url: string;
  token: string;
  channel: string;
  /** How many more listeners to open (the ones already open stay). */
  listeners: number;
}
interface RunCommand {
  cmd: 'run';
  databaseUrl: string;
  table: string;
  writers: number;
  seconds: number;
  /** How long to wait, after the writers stop, for every listener to have every change. */
  catchUpTimeoutSeconds: number;
  /** Commits per second offered in all (evenly spaced); absent: each writer commits as fast as it can. */
  rate?: number;
}
type Command = ConnectCommand | RunCommand | { cmd: 'close' };

interface Change {
  new?: { body?: string };
  payload?: { new?: { body?: string } };
}

const listeners: Socket[] = [];
const now = () => performance.timeOrigin + performance.now();
const send = (message: unknown) => process.send?.(message);

async function connect(command: ConnectCommand) {
  for (let i = 0; i < command.listeners; i++) {
    const socket = io(command.url, { transports: ['websocket'], auth: { token: command.token }, reconnection: false });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    socket.on('realtime:error', (error: unknown) => send({ error: `realtime:error ${JSON.stringify(error)}` }));
    const ack = await socket.emitWithAck('realtime:subscribe', { channel: command.channel });
    if (!ack?.ok) throw new Error(`subscribe refused: ${JSON.stringify(ack)}`);
    listeners.push(socket);
  }
  send({ connected: listeners.length });
}

async function run(command: RunCommand) {
  const latencies: number[] = [];
  let arrived = 0;
  let expected = Number.POSITIVE_INFINITY;
  let wake = () => {};
  const onChange = (change: Change) => {
    const sentAt = Number((change.new ?? change.payload?.new)?.body);
    if (Number.isFinite(sentAt)) latencies.push(now() - sentAt);
    if (++arrived >= expected) wake();
  };
  for (const socket of listeners) socket.on('INSERT', onChange);
  const sql = postgres(command.databaseUrl, { max: command.writers, onnotice: () => {} });
  try {
    // Every writer's connection opened before the clock starts.
    await Promise.all(Array.from({ length: command.writers }, () => sql`select 1`));
    let commits = 0;
    const started = now();
    const end = started + command.seconds * 1000;
    // Paced: the n-th commit of all is due at started + n / rate; a writer behind schedule does not wait.
    let due = 0;
    const untilDue = async () => {
      if (!command.rate) return;
      const at = started + (due++ * 1000) / command.rate;
      if (at > now()) await new Promise((resolve) => setTimeout(resolve, at - now()));
    };
    await Promise.all(
      Array.from({ length: command.writers }, async () => {
        while (now() < end) {
          await untilDue();
          if (now() >= end) break;
          await sql`insert into ${sql(command.table)} (body) values (${String(now())})`;
          commits++;
        }
      }),
    );
    const stopped = now();
    expected = commits * listeners.length;
    if (arrived < expected) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, command.catchUpTimeoutSeconds * 1000);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    const done = now();
    send({
      commits,
      writeSeconds: (stopped - started) / 1000,
      // Until the last listener had the last change (the whole timeout when some never arrived).
      catchUpSeconds: (done - stopped) / 1000,
      deliveriesExpected: expected,
      deliveriesArrived: arrived,
      latencies,
    });
  } finally {
    for (const socket of listeners) socket.off('INSERT', onChange);
    await sql.end({ timeout: 5 });
  }
}

process.on('message', (command: Command) => {
  const work = async () => {
    if (command.cmd === 'connect') await connect(command);
    else if (command.cmd === 'run') await run(command);
    else {
      for (const socket of listeners.splice(0)) socket.disconnect();
      send({ closed: true });
    }
  };
  work().catch((err) => send({ error: String(err?.stack ?? err) }));
});
