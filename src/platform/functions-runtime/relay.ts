// The one way functions reach loopback or private addresses: Plinth's own API and the origins an
// operator allows. The runtime runs with those addresses denied (address-policy.ts); its workers
// send requests for these origins through this HTTP relay on a Unix socket in the runtime's
// private directory, naming the origin by its place in the list (http://<n>.relay.invalid/...).
// Anything else that reaches the socket is refused: it forwards to the listed origins only.
import http from 'node:http';
import https from 'node:https';
import { pipeline } from 'node:stream';
import { HOP_BY_HOP } from '../../core/hop-by-hop.js';

/** The placeholder host of origin number n: never resolved (the relay's socket is the proxy). */
export const relayHost = (n: number) => `${n}.relay.invalid`;
const RELAY_HOST = /^(\d+)\.relay\.invalid$/;

export interface RuntimeRelay {
  close(): Promise<void>;
}

/** Listens on `socketPath` and forwards to `origins` (by index). Resolves once listening. */
export function startRuntimeRelay(socketPath: string, origins: readonly string[]): Promise<RuntimeRelay> {
  const server = http.createServer((req, res) => {
    let target: URL | null = null;
    try {
      const asked = new URL(req.url ?? '');
      const n = RELAY_HOST.exec(asked.hostname)?.[1];
      const origin = n === undefined ? undefined : origins[Number(n)];
      if (origin !== undefined) target = new URL(`${asked.pathname}${asked.search}`, origin);
    } catch {
      target = null;
    }
    if (target === null) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('Functions may not reach this address.');
      return;
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    }
    headers.host = target.host;
    const send = target.protocol === 'https:' ? https.request : http.request;
    const upstream = send(target, { method: req.method, headers }, (answer) => {
      const back: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (!HOP_BY_HOP.has(name) && value !== undefined) back[name] = value;
      }
      // A redirect within the origin stays on the relay (the real address is denied to functions).
      const location = answer.headers.location;
      const n = origins.indexOf(target.origin);
      if (location?.startsWith(target.origin))
        back.location = `http://${relayHost(n)}${location.slice(target.origin.length)}`;
      res.writeHead(answer.statusCode ?? 502, back);
      pipeline(answer, res, () => {});
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end('The origin did not answer.');
      else res.destroy();
    });
    pipeline(req, upstream, () => {});
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve({
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
