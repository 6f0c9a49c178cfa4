// Invocation `/functions/{slug}` (and Supabase's `/functions/v1/{slug}`), every method: the request (method, query, headers, body bytes)
// is streamed to the Deno runtime and its answer (status, headers, body) streamed back. The
// table of active functions is in memory. A call with an Idempotency-Key runs once per key
// (idempotent-invoke.ts), its answer kept in the database for retries.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import { type AcceptedKeys, createPrincipalResolver } from '../../http/principal.js';
import type { FunctionsHost } from './functions-host.js';
import { SLUG } from './functions.schemas.js';
import { createIdempotency, idempotencyKeyOf } from '../idempotency/index.js';
import { invokeOnce } from './idempotent-invoke.js';
import { createRuntimeProxy, forwardable, type ProxyFailure } from './runtime-proxy.js';

const unauthorized = () =>
  new AppError('UNAUTHORIZED', 'This function needs a credential.', {
    nextActions: 'Send an access token, the anon key or the API key in the Authorization header.',
  });

/** The spec's error shape (the reference answers a bare {error}, which clients show as no message). */
export const functionNotFound = (slug: string) =>
  new AppError('FUNCTION_NOT_FOUND', `Function "${slug}" not found or not active.`, {
    nextActions: `List the functions with GET /api/functions; deploy one with POST /api/functions, or activate "${slug}" with PUT /api/functions/${slug} {"status": "active"}.`,
  });

/**
 * What a function's answer always carries (unless FUNCTIONS_SANDBOX=false): it is a sandboxed
 * document of an opaque origin, so a page a function echoes user input into cannot run script as
 * this origin (the dashboard's) nor reach its session. Never sniffed into a more active type.
 */
const SANDBOXED = ['content-security-policy', 'sandbox', 'x-content-type-options', 'nosniff'] as const;

/** Set by Plinth from the connection, never taken from the client (who could claim anything). */
const FORWARDING = new Set(['x-forwarded-for', 'x-forwarded-host', 'x-forwarded-proto']);

export function invokeRoutes(
  deps: Pick<Deps, 'config' | 'clock' | 'sql'> & { keys: AcceptedKeys },
  host: FunctionsHost,
): FastifyPluginAsyncZod {
  const resolvePrincipal = createPrincipalResolver(deps);
  const idempotency = createIdempotency(deps);
  // A deadline of Plinth's own, a little after the runtime's, for a runtime that stops answering.
  const runtimeProxy = createRuntimeProxy(deps.config.functions.timeoutMs + 5_000);
  const enforcedHeaders = deps.config.functions.sandbox ? SANDBOXED : [];
  // As app.ts does for other answers: while shutting down, answers close their connection.
  let closing = false;
  const isClosing = () => closing;

  function checkCredential(request: FastifyRequest): void {
    if (request.principal !== null) return;
    // Access is 'public' at the route (the function decides), which hides a bad credential's
    // error: resolve again to report it, or the missing one.
    if (resolvePrincipal(request) === null) throw unauthorized();
  }

  /** The client's headers (but hop-by-hop and x-plinth-*) and Plinth's, as name, value pairs. */
  function forwardedHeaders(request: FastifyRequest, slug: string, query: string, prefix = '/functions'): string[] {
    const headers: string[] = [];
    const incoming = request.headers;
    for (const name in incoming) {
      const value = incoming[name];
      if (value === undefined || !forwardable(name) || FORWARDING.has(name)) continue;
      if (typeof value === 'string') headers.push(name, value);
      else for (const each of value) headers.push(name, each);
    }
    headers.push(
      'x-forwarded-for',
      request.ip,
      'x-forwarded-host',
      incoming.host ?? '',
      'x-forwarded-proto',
      request.protocol,
      'x-plinth-runtime-token',
      host.runtime.token,
      'x-plinth-url',
      `${deps.config.functions.baseUrl}${prefix}/${slug}${query}`,
      // Tags what the function prints with this request (the logs' source=functions entries).
      'x-plinth-request-id',
      request.id,
    );
    return headers;
  }

  async function proxy(
    request: FastifyRequest,
    reply: FastifyReply,
    slug: string,
    prefix = '/functions',
  ): Promise<FastifyReply> {
    const { runtime } = host;
    const port = runtime.status === 'running' ? runtime.port : null;
    if (port === null) throw new AppError('UPSTREAM_FAILURE', 'The function runtime is not reachable.');
    const queryAt = request.url.indexOf('?');
    const query = queryAt === -1 ? '' : request.url.slice(queryAt);
    try {
      await runtimeProxy.forward(
        { port, socketPath: runtime.socketPath },
        {
          method: request.method,
          path: `/${slug}${query}`,
          headers: forwardedHeaders(request, slug, query, prefix),
          body:
            request.method === 'GET' || request.method === 'HEAD' || request.method === 'OPTIONS' ? null : request.raw,
          reply,
          closing: isClosing,
          enforcedHeaders,
        },
      );
    } catch (err) {
      const failure = err as ProxyFailure;
      throw failure.kind === 'timeout'
        ? new AppError('GATEWAY_TIMEOUT', 'The function runtime did not answer in time.', { cause: failure.cause })
        : new AppError('UPSTREAM_FAILURE', 'The function runtime could not be reached.', { cause: failure.cause });
    }
    return reply;
  }

  /** A call with an Idempotency-Key: run once per key, its answer kept for retries. */
  async function invokeKeyed(request: FastifyRequest, reply: FastifyReply, slug: string, key: string, prefix: string) {
    const { runtime } = host;
    const port = runtime.status === 'running' ? runtime.port : null;
    if (port === null) throw new AppError('UPSTREAM_FAILURE', 'The function runtime is not reachable.');
    const queryAt = request.url.indexOf('?');
    const query = queryAt === -1 ? '' : request.url.slice(queryAt);
    const call = {
      slug,
      key,
      principal: request.principal,
      runtime: { port, socketPath: runtime.socketPath },
      headers: forwardedHeaders(request, slug, query, prefix),
      query,
      maxBodyBytes: deps.config.maxBodyBytes,
      timeoutMs: deps.config.functions.timeoutMs,
    };
    return invokeOnce(idempotency, call, request, reply);
  }

  return async (app) => {
    app.addHook('preClose', async () => {
      closing = true;
    });
    app.addHook('onClose', () => runtimeProxy.close());
    // Bodies of any type pass through untouched: the raw stream goes to the runtime as it comes.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, _payload, done) => done(null));

    /** Invokes the function the wildcard names; `prefix` is the path the client called it under. */
    const invoke = (prefix: string) => async (request: FastifyRequest, reply: FastifyReply) => {
      const slug = (request.params as { '*': string })['*'].replace(/\/$/, '');
      if (!SLUG.test(slug)) return reply.code(404).type('text/plain; charset=utf-8').send('Not Found');
      const fn = host.lookup(slug);
      if (!fn) throw functionNotFound(slug);
      // A CORS preflight carries no credential: the function answers it (Supabase's pattern).
      if (fn.verifyJwt && request.method !== 'OPTIONS') checkCredential(request);
      const key = idempotencyKeyOf(request.headers['idempotency-key']);
      if (key !== undefined) return invokeKeyed(request, reply, slug, key, prefix);
      return proxy(request, reply, slug, prefix);
    };

    app.route({
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      url: '/functions/*',
      config: { access: 'public' },
      // No params schema: the wildcard is always a string, and no validator runs on every call.
      schema: { hide: true },
      handler: invoke('/functions'),
    });

    // Supabase's path for the same functions (supabase-js functions.invoke). As on Supabase, a
    // preflight (OPTIONS) reaches the function, which answers it with its own CORS headers.
    app.route({
      method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
      url: '/functions/v1/*',
      config: { access: 'public' },
      schema: { hide: true },
      handler: invoke('/functions/v1'),
    });
  };
}
