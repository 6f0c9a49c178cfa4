// Child process of bench/suite/overload.ts: a lean open-loop load generator on raw keep-alive sockets.
// autocannon's `overallRate` sends each connection's quota for the second back to back and then
// waits, so a server that refuses fast gets the whole second's load as a burst at its start; this
// one spreads requests evenly (every millisecond, the ones now due), whatever the server answers.
// A request due while every connection is busy and the connection cap is reached is not sent and
// is counted as `unsent` (the client could not offer it). Answers with status counts and latencies.
import { serveOneRun } from '../lib/worker-ipc.js';
import { connect, type Socket } from 'node:net';

export interface OpenLoopSpec {
  host: string;
  port: number;
  paths: string[];
  headers: Record<string, string>;
  rate: number;
  seconds: number;
  maxConnections: number;
}

export interface OpenLoopResult {
  seconds: number;
  sent: number;
  unsent: number;
  statusCodes: Record<string, number>;
  errors: number;
  /** Latency of the 200 answers, ms. */
  okLatencies: number[];
  allP99: number;
  connectionsOpened: number;
  cpuSeconds: number;
}

const TICK_MS = 1;
const HEADER_END = Buffer.from('\r\n\r\n');

function run(spec: OpenLoopSpec): Promise<OpenLoopResult> {
  const headerLines = Object.entries(spec.headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  const requests = spec.paths.map((p) => Buffer.from(`GET ${p} HTTP/1.1\r\nhost: ${spec.host}\r\n${headerLines}\r\n`));
  const statusCodes: Record<string, number> = {};
  const okLatencies: number[] = [];
  const all: number[] = [];
  const idle: Socket[] = [];
  let open = 0;
  let opened = 0;
  let sent = 0;
  let unsent = 0;
  let errors = 0;
  let stopping = false;
  const cpuAtStart = process.cpuUsage();

  /** Opens a connection for one request, sent once it connects. */
  const openConnection = (): void => {
    open++;
    opened++;
    const socket = connect(spec.port, spec.host);
    socket.setNoDelay(true);
    let buffered = Buffer.alloc(0);
    let startedAt = performance.now();
    let busy = true;
    let closeAfter = false;
    const finish = (status: number) => {
      const latency = performance.now() - startedAt;
      statusCodes[status] = (statusCodes[status] ?? 0) + 1;
      all.push(latency);
      if (status === 200) okLatencies.push(latency);
      busy = false;
      if (closeAfter) socket.destroy();
      else if (!stopping) idle.push(socket);
    };
    socket.on('data', (chunk) => {
      buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
      const end = buffered.indexOf(HEADER_END);
      if (end < 0) return;
      const head = buffered.subarray(0, end).toString('latin1').toLowerCase();
      const length = Number(/\r\ncontent-length: *(\d+)/.exec(head)?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      closeAfter = /\r\nconnection: *close/.test(head);
      buffered = buffered.subarray(end + 4 + length);
      finish(Number(head.slice(9, 12)));
    });
    const gone = () => {
      open--;
      const at = idle.indexOf(socket);
      if (at >= 0) idle.splice(at, 1);
      if (busy) {
        errors++;
        busy = false;
      }
    };
    socket.on('error', () => {});
    socket.on('close', gone);
    Object.assign(socket, {
      send: (request: Buffer) => {
        busy = true;
        closeAfter = false;
        startedAt = performance.now();
        socket.write(request);
      },
    });
    socket.once('connect', () => send(socket));
  };

  const send = (socket: Socket) =>
    (socket as Socket & { send(b: Buffer): void }).send(requests[Math.floor(Math.random() * requests.length)]!);

  return new Promise((resolve) => {
    const started = performance.now();
    const timer = setInterval(() => {
      const elapsed = (performance.now() - started) / 1000;
      if (elapsed >= spec.seconds) {
        clearInterval(timer);
        stopping = true;
        // Answers still in flight get a moment, then the run ends.
        setTimeout(() => {
          for (const s of idle) s.destroy();
          const cpu = process.cpuUsage(cpuAtStart);
          const sorted = all.sort((a, b) => a - b);
          resolve({
            seconds: spec.seconds,
            sent,
            unsent,
            statusCodes,
            errors,
            okLatencies,
            allP99: sorted[Math.floor(sorted.length * 0.99)] ?? NaN,
            connectionsOpened: opened,
            cpuSeconds: (cpu.user + cpu.system) / 1e6,
          });
        }, 1_000);
        return;
      }
      let due = Math.floor(elapsed * spec.rate) - sent - unsent;
      while (due-- > 0) {
        const socket = idle.pop();
        if (socket) {
          sent++;
          send(socket);
        } else if (open < spec.maxConnections) {
          sent++;
          openConnection();
        } else unsent++;
      }
    }, TICK_MS);
  });
}

serveOneRun(run);
