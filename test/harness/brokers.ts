// Message brokers of the machine's own binaries (nats-server with JetStream, redis-server) as
// child processes on free loopback ports, for the realtime bus tests: each test file has its own
// broker (nothing shared with other files), which it can stop and start again on the same port
// (NATS keeps its JetStream store directory across the restart).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.js';

export interface Broker {
  engine: 'nats' | 'redis';
  url: string;
  port: number;
  /** Kills the broker (SIGKILL: connections drop as in a crash). */
  stop(): Promise<void>;
  /** Starts it again on the same port (and store). */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Resolves once something accepts TCP connections on the port. */
async function acceptsConnections(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`broker exited (${child.exitCode}): ${output()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`broker not listening on ${port}: ${output()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function startBroker(engine: Broker['engine'], args: (port: number) => string[], dir?: string): Promise<Broker> {
  const port = await freePort();
  const command = engine === 'nats' ? 'nats-server' : 'redis-server';
  let child: ChildProcess | undefined;
  const launch = async () => {
    let output = '';
    const started = spawn(command, args(port), { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (d: Buffer) => {
      output += d.toString();
    };
    started.stdout?.on('data', keep);
    started.stderr?.on('data', keep);
    child = started;
    await acceptsConnections(port, started, () => output);
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await launch();
  return {
    engine,
    port,
    url: `${engine}://127.0.0.1:${port}`,
    stop: kill,
    start: launch,
    async close() {
      await kill();
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** nats-server with JetStream, its store in a temporary directory. */
export async function startNatsBroker(): Promise<Broker> {
  const dir = await mkdtemp(path.join(tmpdir(), 'plinth-nats-'));
  return startBroker('nats', (port) => ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir], dir);
}

/** redis-server without persistence. */
export function startRedisBroker(): Promise<Broker> {
  return startBroker('redis', (port) => [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
  ]);
}
