// A small loopback load balancer for tests and benchmarks, as any HTTP balancer: each request
// (and each WebSocket upgrade) is streamed both ways to an upstream chosen in `order` —
// round-robin, or always the first that is up (fail-over) — and an upstream that refuses the
// connection (a killed server) is skipped for the next one.
import http, { type IncomingMessage } from 'node:http';
import net, { type AddressInfo } from 'node:net';

export interface Balancer {
  url: string;
  /** Requests (upgrades included) each upstream was handed, in upstream order. */
  handled: number[];
  close(): Promise<void>;
}

export type BalancerOrder = 'round-robin' | 'first-up';

/** `upstreams`: base URLs such as http://127.0.0.1:3001. */
export async function startBalancer(upstreams: string[], order: BalancerOrder = 'round-robin'): Promise<Balancer> {
  const targets = upstreams.map((u) => new URL(u));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const handled = targets.map(() => 0);
  let next = 0;
  /** The upstream indexes to try for one request, in order. */
  const candidates = () => {
    const first = order === 'round-robin' ? next++ % targets.length : 0;
    return targets.map((_, i) => (first + i) % targets.length);
  };
  const refused = (err: NodeJS.ErrnoException) => err.code === 'ECONNREFUSED';
  const forwardedHeaders = (req: IncomingMessage) => ({
    ...req.headers,
    'x-forwarded-for': req.socket.remoteAddress ?? '',
  });

  const server = http.createServer((req, res) => {
    // A body is streamed to the first upstream tried, so only a request without one moves on.
    const retryable = req.method === 'GET' || req.method === 'HEAD';
    const attempt = ([i, ...rest]: number[]) => {
      if (i === undefined) return void res.writeHead(502).end();
      const target = targets[i]!;
      handled[i]!++;
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
      upstream.on('error', (err) => {
        if (retryable && refused(err) && !res.headersSent) return attempt(rest);
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
      if (retryable) upstream.end();
      else req.pipe(upstream);
    };
    attempt(candidates());
  });

  // WebSockets: the upgrade request written to the upstream as is, then bytes both ways.
  server.on('upgrade', (req: IncomingMessage, socket: net.Socket, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const attempt = ([i, ...rest]: number[]) => {
      if (i === undefined) return void socket.destroy();
      const target = targets[i]!;
      handled[i]!++;
      const upstream = net.connect(Number(target.port), target.hostname, () => {
        const lines = [`${req.method} ${req.url} HTTP/1.1`];
        for (let r = 0; r < req.rawHeaders.length; r += 2) lines.push(`${req.rawHeaders[r]}: ${req.rawHeaders[r + 1]}`);
        upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (head.length) upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
        // Either side ending ends both (a killed server resets its clients' connections).
        upstream.on('close', () => socket.destroy());
        socket.on('close', () => upstream.destroy());
      });
      upstream.on('error', (err) => {
        upstream.destroy();
        if (refused(err) && !socket.destroyed && upstream.bytesWritten === 0) attempt(rest);
        else socket.destroy();
      });
    };
    attempt(candidates());
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
