// Every request's server-side deadline: a request still unanswered REQUEST_TIMEOUT_MS after its
// body arrived gets 503 (with Retry-After) instead of hanging — SERVICE_UNAVAILABLE for a read,
// OUTCOME_UNKNOWN for a write, which may have taken effect; the database
// envelopes bound their own work by the same setting and cancel what still runs. (Overload is
// refused before a request reaches Fastify: admission.ts.)
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { outcomeUnknown, unavailable } from '../core/pg-errors.js';
import type { Config } from '../config.js';
import { sendError } from './error-handler.js';

/** Methods that change nothing: past the deadline they were simply not completed. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

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

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's deadline timer while it is unanswered. */
    deadlineTimer: NodeJS.Timeout | null;
  }
}

/** Sets the request's timer (no closure: the timer carries its arguments). */
function arm(request: FastifyRequest, reply: FastifyReply, ms: number): void {
  request.deadlineTimer = setTimeout(onDeadline, ms, request, reply, ms).unref();
}

function onDeadline(request: FastifyRequest, reply: FastifyReply, ms: number): void {
  if (reply.sent || reply.raw.headersSent) return; // a streamed answer has begun: its own timeouts apply
  if (request.raw.complete === false) {
    arm(request, reply, ms); // still receiving the body
    return;
  }
  request.log.warn({ deadlineMs: ms }, 'request passed its deadline');
  const message = `The request did not complete within ${ms} ms.`;
  // A write may have reached the database and committed after all: "not completed, retry"
  // would make a retrying client write twice.
  sendError(reply, READS.has(request.method) ? unavailable(message) : outcomeUnknown(message));
}

export function registerRequestDeadline(app: FastifyInstance, config: Config): void {
  app.decorateRequest('deadlineTimer', null);
  app.addHook('onRequest', (request, reply, done) => {
    arm(request, reply, deadlineFor(request, config));
    done();
  });
  const disarm = (request: FastifyRequest) => {
    clearTimeout(request.deadlineTimer ?? undefined);
    request.deadlineTimer = null;
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
