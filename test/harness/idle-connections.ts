// Floods of idle connections, as a slow or hostile client holds them: TCP connections to a
// server's port that never send a byte.
import { connect, type Socket } from 'node:net';

/** Opens `count` connections to a loopback port; resolves once each connected or failed. */
export async function openIdleConnections(port: number, count: number): Promise<Socket[]> {
  const sockets: Socket[] = [];
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((resolve) => {
          const socket = connect(port, '127.0.0.1');
          sockets.push(socket);
          socket.on('error', () => {}); // a refused or reset connection is part of the measurement
          socket.once('connect', () => resolve());
          socket.once('close', () => resolve());
        }),
    ),
  );
  return sockets;
}
