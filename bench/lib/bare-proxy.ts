// The least a Node proxy in front of the function runtime does, for bench/probes/functions-cost.ts: a
// bare node:http server that forwards each request to the runtime (its Unix socket, or its port)
// through one undici pool, the client's headers plus the runtime token, and streams the
// answer back. No framework, routing, credential check, logging or metrics: the floor under
// Plinth's own proxy, measured on the same machine in the same run.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool, type Dispatcher } from 'undici';
import type { Deps } from '../../src/deps.js';

/** Where the runtime listens and the token it wants: what any proxy in front of it needs. */
type Runtime = Pick<Deps['runtime'], 'socketPath' | 'port' | 'token'>;

/** Headers that belong to one hop (RFC 9110 §7.6.1, plus host and expect), and Plinth's own. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'expect',
]);
const forwardable = (name: string) => !HOP_BY_HOP.has(name) && !name.startsWith('x-plinth-');

export interface BareProxy {
  url: string;
  close(): Promise<void>;
}

/** `via`: the runtime's Unix socket (where it has one) or its loopback port. */
export async function startBareProxy(runtime: Runtime, via: 'socket' | 'port'): Promise<BareProxy> {
  const options = { connections: 256 };
  const pool =
    via === 'socket' && runtime.socketPath
      ? new Pool('http://localhost', { ...options, socketPath: runtime.socketPath })
      : new Pool(`http://127.0.0.1:${runtime.port}`, options);
  const server = http.createServer((req, res) => {
    const headers: Record<string, string | string[]> = { 'x-plinth-runtime-token': runtime.token };
    for (const name in req.headers) if (forwardable(name)) headers[name] = req.headers[name]!;
    const handler: Dispatcher.DispatchHandlers = {
      onConnect() {},
      onHeaders(status, raw, resume) {
        const answer: string[] = [];
        for (let i = 0; i + 1 < raw.length; i += 2) {
          const name = raw[i]!.toString('latin1');
          if (forwardable(name.toLowerCase())) answer.push(name, raw[i + 1]!.toString('latin1'));
        }
        res.writeHead(status, answer);
        res.on('drain', resume);
        return true;
      },
      onData: (chunk) => res.write(chunk),
      onComplete: () => res.end(),
      onError: () => res.destroy(),
    };
    pool.dispatch({ method: req.method as Dispatcher.HttpMethod, path: req.url!, headers }, handler);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await pool.destroy();
    },
  };
}
