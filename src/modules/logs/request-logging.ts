// The request hooks: one stdout line per request (Fastify's own two lines are off), and one
// buffered entry per request (functions by slug), per server error (with its stack) and per
// successful admin write (the audit record, secrets redacted). Callback-style hooks: no promise
// and no database work on the request path.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../core/clock.js';
import type { LogEntry } from './log-entry.js';
import type { LogsService } from './logs.service.js';
import { redactSecrets } from './redact.js';

/** Function invocations, at Plinth's path and at Supabase's. */
const FUNCTION_ROUTES = new Set(['/functions/*', '/functions/v1/*']);

/** The path of a request without its query string: queries carry tokens, emails, search text. */
const pathOf = (url: string) => {
  const at = url.indexOf('?');
  return at === -1 ? url : url.slice(0, at);
};

/** The fields every entry of one request shares. */
interface RequestFacts {
  ts: Date;
  method: string;
  route: string | null;
  status: number;
  durationMs: number;
  request: FastifyRequest;
}

/** One entry of a request, written out field by field (no spreads on the request path). */
function entryOf(
  facts: RequestFacts,
  source: LogEntry['source'],
  level: LogEntry['level'],
  slug: string | null,
  message: string,
  details: LogEntry['details'],
): LogEntry {
  const { request } = facts;
  const principal = request.principal;
  let kind = 'none';
  let userId: string | null = null;
  if (principal) {
    if (principal.kind === 'user') {
      kind = 'user';
      userId = principal.userId;
    } else if (principal.kind === 'admin') {
      kind = principal.via === 'apiKey' ? 'api-key' : 'admin';
      userId = principal.via === 'apiKey' ? null : principal.subject;
    } else kind = principal.kind;
  }
  return {
    id: randomUUID(),
    ts: facts.ts,
    source,
    level,
    method: facts.method,
    route: facts.route,
    status: facts.status,
    durationMs: facts.durationMs,
    principal: kind,
    userId,
    ip: request.ip,
    requestId: request.id,
    slug,
    message,
    details,
  };
}

/** The API area a route belongs to (the audit record's module): /api/secrets/:key → SECRETS. */
const moduleOf = (route: string): string =>
  (/^\/api\/([^/]+)/.exec(route)?.[1] ?? route.split('/')[1] ?? 'API').toUpperCase();

const hasKeys = (value: unknown) => typeof value === 'object' && value !== null && Object.keys(value).length > 0;

const isWrite = (method: string) => method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';

/** Installs the hooks on the root instance; `logs` null: stdout only (LOGS_STORE=false). */
export function logRequests(app: FastifyInstance, logs: LogsService | null, clock: Clock): void {
  const failures = new WeakMap<FastifyRequest, Error>();
  app.addHook('onError', (request, _reply, error, done) => {
    failures.set(request, error);
    done();
  });

  app.addHook('onResponse', (request: FastifyRequest, reply: FastifyReply, done) => {
    const status = reply.statusCode;
    const durationMs = Math.round(reply.elapsedTime * 100) / 100;
    const routeOptions = request.routeOptions;
    const route = routeOptions.url ?? null;
    const path = pathOf(request.url);
    const line = { method: request.method, url: path, statusCode: status, durationMs };
    if (status >= 500) request.log.error(line, 'request failed');
    else request.log.info(line, 'request');
    if (!logs) return done();

    const facts: RequestFacts = { ts: clock.now(), method: request.method, route, status, durationMs, request };
    const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
    if (route !== null && FUNCTION_ROUTES.has(route)) {
      const slug = String((request.params as Record<string, string>)['*'] ?? '').replace(/\/$/, '');
      logs.record(entryOf(facts, 'functions', level, slug, `${request.method} /functions/${slug} ${status}`, null));
    } else {
      logs.record(entryOf(facts, 'requests', level, null, `${request.method} ${route ?? path} ${status}`, null));
    }
    if (status >= 500) {
      const error = failures.get(request);
      const message = error?.message ?? `${request.method} ${path} answered ${status}`;
      logs.record(
        entryOf(
          facts,
          'errors',
          'error',
          null,
          message,
          error ? { name: error.name, stack: error.stack ?? null } : null,
        ),
      );
    }
    if (route && status < 400 && isWrite(request.method) && routeOptions.config.access === 'admin') {
      logs.record(
        entryOf(facts, 'audit', 'info', null, `${request.method} ${route}`, {
          module: moduleOf(route),
          target: redactSecrets(request.params),
          body: redactSecrets(request.body),
          // Which rows a filtered write touched (the admin record editor: ?id=eq.…).
          ...(hasKeys(request.query) ? { query: redactSecrets(request.query) } : {}),
        }),
      );
    }
    done();
  });
}
