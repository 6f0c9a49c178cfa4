// Admission at the door: while the database pool is saturated, a new request is refused with a
// pre-serialised 503 SERVICE_UNAVAILABLE (Retry-After, spec error shape) by the HTTP server itself,
// before Fastify routes, authenticates or logs it. Under overload a refusal must cost next to
// nothing, or the refusals starve the requests that were accepted. Health checks and CORS
// preflights are always let through. Requests that did not pass the door (inject(), the extra
// servers Fastify binds when HOST resolves to several addresses) get the same check in onRequest.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { toErrorBody } from '../core/errors.js';
import { unavailable } from '../core/pg-errors.js';
import { AT_CAPACITY, type PoolGuard } from '../core/pool-guard.js';
import type { ConcurrencyLimit } from './concurrency-limit.js';
import { corsHeaders, type OriginPolicy } from './cors.js';
import { sendError } from './error-handler.js';
import { requestIdOf } from './request-id.js';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

export interface AdmissionOptions {
  pool: PoolGuard;
  /**
   * Requests in flight (admitted, not yet answered) past which new ones are refused while every
   * database connection is held: adaptive (http/concurrency-limit.ts), at most the pool plus its
   * wait queue, less while refusing has not kept latency near its baseline.
   */
  limit: ConcurrencyLimit;
  /** Milliseconds, the limit's clock: each admitted request's latency is measured on it. */
  now(): number;
  /** CORS_ORIGINS: a browser must be able to read the refusal. */
  allowsOrigin: OriginPolicy;
  /** Told at most once a second while refusing: the count refused since it was last told, the limit. */
  onRefusing(refused: number, limit: number): void;
}

/** Every route under it answers even when the server is at capacity (orchestrators probe it). */
const HEALTH_PREFIX = '/api/health';
const LOG_EVERY_MS = 1_000;
const LARGE_BODY_BYTES = 64 * 1024;

const REFUSAL = Buffer.from(JSON.stringify(toErrorBody(unavailable(AT_CAPACITY))));
const REFUSAL_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': String(REFUSAL.length),
  ...unavailable(AT_CAPACITY).headers,
};

const exempt = (req: IncomingMessage) => req.method === 'OPTIONS' || req.url?.startsWith(HEALTH_PREFIX) === true;

/** When an admitted request was let in (the limit's clock); a request without it did not pass the door. */
const ADMITTED_AT = Symbol('admittedAt');
type Admitted = IncomingMessage & { [ADMITTED_AT]?: number };

/** Puts the admission check in front of Fastify's request listener on `app.server`. */
export function installAdmission(app: FastifyInstance, options: AdmissionOptions): void {
  const [fastifyListener, ...others] = app.server.listeners('request') as RequestListener[];
  if (!fastifyListener || others.length > 0) throw new Error('expected exactly one request listener (Fastify)');
  const door = admitAtTheDoor(fastifyListener, options);
  app.server.removeListener('request', fastifyListener);
  app.server.on('request', door.listener);
  app.addHook('onRequest', (request, reply, done) => {
    if ((request.raw as Admitted)[ADMITTED_AT] === undefined && !exempt(request.raw) && door.saturated()) {
      sendError(reply, unavailable(AT_CAPACITY));
      return;
    }
    done();
  });
}

function admitAtTheDoor(next: RequestListener, options: AdmissionOptions) {
  const { pool, limit, now } = options;
  let inFlight = 0;
  let refusedSinceLog = 0;
  let loggedAt = 0;

  // Saturated: the wait queue is full, or the requests in flight reach the limit while as many
  // connections as it allows are held (every one, or fewer once the limit has shrunk below the
  // pool). Requests in flight alone (slow uploads, function calls) refuse no one while connections
  // are free.
  const saturated = () => {
    if (pool.full()) return true;
    const allowed = limit.limit;
    return inFlight >= allowed && pool.stats().active >= Math.min(allowed, pool.options.max);
  };

  // The connection stays open (closing it costs more than the refusal: the client reconnects at
  // once), unless a large body is still to come: Node would read it all to reuse the connection.
  const refuse = (req: IncomingMessage, res: ServerResponse) => {
    const largeBody =
      req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > LARGE_BODY_BYTES;
    res.writeHead(503, {
      ...REFUSAL_HEADERS,
      ...(largeBody ? { connection: 'close' } : {}),
      'x-request-id': requestIdOf(req),
      ...corsHeaders(req.headers.origin, options.allowsOrigin),
    });
    res.end(REFUSAL);
    options.pool.countRefusal();
    limit.refused();
    refusedSinceLog++;
    const at = Date.now();
    if (at - loggedAt >= LOG_EVERY_MS) {
      options.onRefusing(refusedSinceLog, limit.limit);
      refusedSinceLog = 0;
      loggedAt = at;
    }
  };

  // One listener for every answer ('close' is emitted once), not a closure per request.
  function onAnswered(this: ServerResponse): void {
    inFlight--;
    limit.completed((this.req as Admitted)[ADMITTED_AT]!);
  }

  const listener: RequestListener = (req, res) => {
    if (!exempt(req) && saturated()) return refuse(req, res);
    inFlight++;
    (req as Admitted)[ADMITTED_AT] = now();
    res.on('close', onAnswered);
    next(req, res);
  };
  return { listener, saturated };
}
