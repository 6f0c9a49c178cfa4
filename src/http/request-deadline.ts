// Every request's server-side deadline: a request still unanswered REQUEST_TIMEOUT_MS after its
// body arrived gets 503 SERVICE_UNAVAILABLE (with Retry-After) instead of hanging; the database
// envelopes bound their own work by the same setting and cancel what still runs. (Overload is
// refused before a request reaches Fastify: admission.ts.)
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { unavailable } from '../core/pg-errors.js';
import type { Config } from '../config.js';
import { sendError } from './error-handler.js';

/** Routes whose work has a longer timeout of its own get that timeout plus a second. */
function deadlineFor(request: FastifyRequest, config: Config): number {
  const url = request.routeOptions.url ?? '';
  if (url.startsWith('/functions/')) return Math.max(config.requestTimeoutMs, config.functions.timeoutMs + 1_000);
  if (url.startsWith('/api/database/advance/rawsql'))
    return Math.max(config.requestTimeoutMs, config.rawSqlTimeoutMs + 1_000);
  if (url === '/api/database/backups/:id/restore')
    return Math.max(config.requestTimeoutMs, config.backups.restoreTimeoutMs);
  return config.requestTimeoutMs;
}

function arm(
  timers: WeakMap<FastifyRequest, NodeJS.Timeout>,
  request: FastifyRequest,
  reply: FastifyReply,
  ms: number,
): void {
  timers.set(
    request,
    setTimeout(() => {
      if (reply.sent || reply.raw.headersSent) return; // a streamed answer has begun: its own timeouts apply
      if (request.raw.complete === false) return arm(timers, request, reply, ms); // still receiving the body
      request.log.warn({ deadlineMs: ms }, 'request passed its deadline');
      sendError(reply, unavailable(`The request did not complete within ${ms} ms.`));
    }, ms).unref(),
  );
}

export function registerRequestDeadline(app: FastifyInstance, config: Config): void {
  const timers = new WeakMap<FastifyRequest, NodeJS.Timeout>();
  app.addHook('onRequest', (request, reply, done) => {
    arm(timers, request, reply, deadlineFor(request, config));
    done();
  });
  const disarm = (request: FastifyRequest) => {
    clearTimeout(timers.get(request));
    timers.delete(request);
  };
  app.addHook('onResponse', (request, _reply, done) => {
    disarm(request);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    disarm(request);
    done();
  });
}
