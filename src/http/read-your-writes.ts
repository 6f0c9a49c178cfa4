// Read-your-writes across read replicas: after a request that may have written (any method but
// GET, HEAD and OPTIONS, unless it was refused with a 4xx, which rolls back) the primary's WAL
// position is noted for the caller before the answer goes out, so the caller's next reads on this
// server run where that write is visible. The position is also sent in `x-plinth-lsn`; a client
// that sends it back on a read (to any server) reads at least there. Nothing is added without
// replicas.
import type { FastifyInstance } from 'fastify';
import { consistencyKeyOf, formatLsn, parseLsn, type ReadRouter } from '../platform/read-replicas/index.js';

export const LSN_HEADER = 'x-plinth-lsn';
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function registerReadYourWrites(app: FastifyInstance, router: ReadRouter): void {
  if (!router.enabled) return;
  app.addHook('onRequest', async (request) => {
    const sent = request.headers[LSN_HEADER];
    if (typeof sent !== 'string') return;
    let lsn: bigint;
    try {
      lsn = parseLsn(sent.trim());
    } catch {
      return; // not a position: ignored, as any unknown header
    }
    await router.requireFor(consistencyKeyOf(request.principal), lsn);
  });
  app.addHook('onSend', async (request, reply) => {
    if (READS.has(request.method)) return;
    const status = reply.statusCode;
    if (status >= 400 && status < 500) return;
    const session = consistencyKeyOf(request.principal);
    await router.noteWrite(session);
    const position = router.positionOf(session);
    if (position > 0n) reply.header(LSN_HEADER, formatLsn(position));
  });
}
