// A TCP proxy on loopback in front of several servers, as a load balancer with health by
// connection: each new connection goes to the first backend that accepts it, in the order given,
// so while the first server lives every client lands there, and once it dies they land on the next.
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface FailoverProxy {
  url: string;
  close(): Promise<void>;
}

/** Connects to the first backend port that accepts, or null when none does. */
function firstAccepting(ports: number[]): Promise<Socket | null> {
  const [port, ...rest] = ports;
  if (port === undefined) return Promise.resolve(null);
  return new Promise((resolve) => {
    const upstream = connect(port, '127.0.0.1');
    upstream.once('connect', () => resolve(upstream));
    upstream.once('error', () => {
      upstream.destroy();
      void firstAccepting(rest).then(resolve);
    });
  });
}

export async function startFailoverProxy(backendPorts: number[]): Promise<FailoverProxy> {
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  };
  const server = createServer((client) => {
    track(client);
    client.pause();
    void firstAccepting(backendPorts).then((upstream) => {
      if (!upstream || client.destroyed) {
        upstream?.destroy();
        client.destroy();
        return;
      }
      track(upstream);
      // Either side closing or failing ends both (a killed server resets its clients' connections).
      for (const [from, to] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        from.on('error', () => to.destroy());
        from.on('close', () => to.destroy());
        from.pipe(to);
      }
      client.resume();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
