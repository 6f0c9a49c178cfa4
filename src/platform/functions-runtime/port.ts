// The function runtime's loopback port, served by this process: the runtime itself listens on its
// Unix socket only, because it runs with loopback addresses denied (functions must not reach the
// database or other local services) and Deno's deny also forbids listening there. Each
// connection to the port is piped to the socket, so callers of the port see no difference.
import net from 'node:net';

/** Listens on 127.0.0.1:`port` (0: any free port) and pipes each connection to `socketPath`. */
export function listenRuntimePort(port: number, socketPath: string): Promise<net.Server> {
  const server = net.createServer((conn) => {
    const runtime = net.connect(socketPath);
    conn.on('error', () => runtime.destroy());
    runtime.on('error', () => conn.destroy());
    conn.pipe(runtime).pipe(conn);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
