// Child process of bench/suite/realtime-fanout.ts: holds the benchmark's socket.io-client connections
// (as the official client opens them: WebSocket only, {token} auth, realtime:subscribe with an
// ack), so the server under test has its process to itself. Driven over IPC.
import { io, type Socket } from 'socket.io-client';

interface ConnectCommand {
  cmd: 'connect';
  url: string;
  token: string;
  clients: number;
  channel: string;
  /** Wait for the presence:join events every subscribe announces (each anon socket is a member). */
  awaitPresence: boolean;
}
interface FanoutCommand {
  cmd: 'fanout';
  channel: string;
  rounds: number;
  burst: number;
}
type Command = ConnectCommand | FanoutCommand | { cmd: 'close' };

const sockets: Socket[] = [];
const now = () => performance.timeOrigin + performance.now();
const send = (message: unknown) => process.send?.(message);

let joinsSeen = 0;
let onJoin: (() => void) | undefined;

async function connect(command: ConnectCommand) {
  const batch = 50;
  for (let i = 0; i < command.clients; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, command.clients - i) }, async () => {
        const socket = io(command.url, {
          transports: ['websocket'],
          auth: { token: command.token },
          reconnection: false,
        });
        socket.on('presence:join', () => {
          joinsSeen++;
          onJoin?.();
        });
        await new Promise<void>((resolve, reject) => {
          socket.once('connect', () => resolve());
          socket.once('connect_error', reject);
        });
        const ack = await socket.emitWithAck('realtime:subscribe', { channel: command.channel });
        if (!ack?.ok) throw new Error(`subscribe refused: ${JSON.stringify(ack)}`);
        sockets.push(socket);
      }),
    );
  }
  // Every join reaches the sockets already subscribed: n(n-1)/2 in all. The fan-out is measured
  // once they have all arrived, so it does not compete with the subscribe phase's presence traffic.
  const expected = command.awaitPresence ? (sockets.length * (sockets.length - 1)) / 2 : 0;
  if (joinsSeen < expected) {
    await new Promise<void>((resolve) => {
      onJoin = () => {
        if (joinsSeen >= expected) resolve();
      };
    });
    onJoin = undefined;
  }
  send({ connected: sockets.length, joinsSeen });
}

/** Publishes `count` messages from the first socket; resolves when every socket has them all. */
function publish(channel: string, count: number, first: number) {
  const publisher = sockets[0]!;
  const latencies: number[] = [];
  const started = now();
  const sentAt = new Map<number, number>();
  let remaining = count * sockets.length;
  return new Promise<{ latencies: number[]; seconds: number }>((resolve) => {
    const onMessage = (message: { seq: number }) => {
      latencies.push(now() - (sentAt.get(message.seq) ?? started));
      if (--remaining === 0) {
        for (const socket of sockets) socket.off('bench', onMessage);
        resolve({ latencies, seconds: (now() - started) / 1000 });
      }
    };
    for (const socket of sockets) socket.on('bench', onMessage);
    for (let seq = first; seq < first + count; seq++) {
      sentAt.set(seq, now());
      publisher.emit('realtime:publish', { channel, event: 'bench', payload: { seq, text: 'x'.repeat(64) } });
    }
  });
}

async function fanout(command: FanoutCommand) {
  const latencies: number[] = [];
  let seq = 0;
  for (let round = 0; round < command.rounds; round++) {
    const result = await publish(command.channel, 1, seq++);
    latencies.push(...result.latencies);
  }
  const burst = await publish(command.channel, command.burst, seq);
  send({
    latencies,
    burstLatencies: burst.latencies,
    burstDeliveries: command.burst * sockets.length,
    burstSeconds: burst.seconds,
  });
}

process.on('message', (command: Command) => {
  const run = async () => {
    if (command.cmd === 'connect') await connect(command);
    else if (command.cmd === 'fanout') await fanout(command);
    else {
      for (const socket of sockets.splice(0)) socket.disconnect();
      send({ closed: true });
      process.disconnect();
    }
  };
  run().catch((err) => {
    send({ error: String(err?.stack ?? err) });
  });
});
