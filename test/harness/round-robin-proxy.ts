// A small loopback load balancer for tests and benchmarks: each request (and each WebSocket
// upgrade) goes to the next upstream in turn, streamed both ways, as any HTTP balancer would.
import http, { type IncomingMessage } from 'node:http';
import net, { type AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  url: string;
  /** Requests (upgrades included) each upstream was handed, in upstream order. */
  handled: number[];
  close(): Promise<void>;
}

/** `upstreams`: base URLs such as http://127.0.0.1:3001. */
export async function startRoundRobinProxy(upstreams: string[]): Promise<RoundRobinProxy> {
  const targets = upstreams.map((u) => new URL(u));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const handled = targets.map(() => 0);
  let next = 0;
  const pick = () => {
    const i = next++ % targets.length;
    handled[i]!++;
    return targets[i]!;
  };
  const forwardedHeaders = (req: IncomingMessage) => ({
    ...req.headers,
    'x-forwarded-for': req.socket.remoteAddress ?? '',
  });

  const server = http.createServer((req, res) => {
    const target = pick();
    const upstream = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: forwardedHeaders(req),
        agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  });

  // WebSockets: the upgrade request written to the upstream as is, then bytes both ways.
  server.on('upgrade', (req: IncomingMessage, socket: net.Socket, head: Buffer) => {
    const target = pick();
    const upstream = net.connect(Number(target.port), target.hostname, () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    handled,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
