// Child process of bench/suite/notify-ceiling.ts: the listening sockets and the publishing sockets
// (socket.io-client as the official client opens them), so the server under test has its process to
// itself. Publishers keep `window` messages each in flight (a message is committed once its
// publisher hears it back); listeners time each message from its send to its arrival. Over IPC.
import { io, type Socket } from 'socket.io-client';

interface ConnectCommand {
  cmd: 'connect';
  url: string;
  token: string;
  channel: string;
  listeners: number;
  publishers: number;
}
interface RunCommand {
  cmd: 'run';
  channel: string;
  seconds: number;
  window: number;
}
type Command = ConnectCommand | RunCommand | { cmd: 'close' };

const listeners: Socket[] = [];
const publishers: Socket[] = [];
const now = () => performance.timeOrigin + performance.now();
const send = (message: unknown) => process.send?.(message);

async function subscribed(url: string, token: string, channel: string): Promise<Socket> {
  const socket = io(url, { transports: ['websocket'], auth: { token }, reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  socket.on('realtime:error', (error: unknown) => send({ error: `realtime:error ${JSON.stringify(error)}` }));
  const ack = await socket.emitWithAck('realtime:subscribe', { channel });
  if (!ack?.ok) throw new Error(`subscribe refused: ${JSON.stringify(ack)}`);
  return socket;
}

async function connect(command: ConnectCommand) {
  for (let i = 0; i < command.listeners; i++)
    listeners.push(await subscribed(command.url, command.token, command.channel));
  for (let i = 0; i < command.publishers; i++)
    publishers.push(await subscribed(command.url, command.token, command.channel));
  send({ connected: listeners.length + publishers.length });
}

async function run(command: RunCommand) {
  const latencies: number[] = [];
  let committed = 0;
  let measuring = true;
  const onListen = (message: { payload?: { sentAt?: number } } & { sentAt?: number }) => {
    const sentAt = message.payload?.sentAt ?? message.sentAt;
    if (measuring && typeof sentAt === 'number') latencies.push(now() - sentAt);
  };
  for (const socket of listeners) socket.on('notify', onListen);
  const started = now();
  const until = started + command.seconds * 1000;
  await Promise.all(
    publishers.map(
      (socket, p) =>
        new Promise<void>((resolve) => {
          let inFlight = 0;
          let seq = 0;
          const publish = () => {
            inFlight++;
            socket.emit('realtime:publish', {
              channel: command.channel,
              event: 'notify',
              payload: { publisher: p, seq: seq++, sentAt: now() },
            });
          };
          socket.on('notify', (message: { payload?: { publisher?: number } } & { publisher?: number }) => {
            if ((message.payload?.publisher ?? message.publisher) !== p) return;
            inFlight--;
            if (now() < until) {
              committed++;
              publish();
            } else if (inFlight === 0) resolve();
          });
          for (let i = 0; i < command.window; i++) publish();
        }),
    ),
  );
  measuring = false;
  for (const socket of [...listeners, ...publishers]) socket.off('notify');
  send({ committed, seconds: (now() - started) / 1000, latencies });
}

process.on('message', (command: Command) => {
  const work = async () => {
    if (command.cmd === 'connect') await connect(command);
    else if (command.cmd === 'run') await run(command);
    else {
      for (const socket of [...listeners, ...publishers].splice(0)) socket.disconnect();
      listeners.length = 0;
      publishers.length = 0;
      send({ closed: true });
    }
  };
  work().catch((err) => send({ error: String(err?.stack ?? err) }));
});
