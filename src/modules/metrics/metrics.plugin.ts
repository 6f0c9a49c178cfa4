// Wires metrics into the app in two steps: the request hook goes on the root instance before any
// module registers (so it sees every route), and the /metrics route plugin is registered with
// the other modules (after the OpenAPI plugin, which documents it). METRICS_ACCESS=off adds neither.
import type { FastifyInstance } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Registry } from 'prom-client';
import { guardOf } from '../../core/db.js';
import type { Deps } from '../../deps.js';
import { createMetrics, type ImageCounts } from './metrics-registry.js';
import { metricsRoutes } from './metrics.routes.js';
import { registerReplicaMetrics } from './replica-metrics.js';

/** Function invocations, at Plinth's path and at Supabase's. */
const FUNCTION_ROUTES = new Set(['/functions/*', '/functions/v1/*']);

/** Starts measuring every request (`logDropped`: the log writer's drops; `realtimeRefused`: realtime's refusals by reason); answers the plugin of GET /metrics (null when metrics are off). */
export function instrumentRequests(
  app: FastifyInstance,
  deps: Deps,
  logDropped: () => number = () => 0,
  realtimeRefused: () => ReadonlyMap<string, number> = () => new Map(),
  imageCounts?: () => ImageCounts,
  registerMore: ((registry: Registry) => void)[] = [],
): FastifyPluginAsyncZod | null {
  const access = deps.config.metricsAccess;
  if (access === 'off') return null;
  const metrics = createMetrics(guardOf(deps.sql), logDropped, realtimeRefused, imageCounts);
  if (deps.replicas.enabled) registerReplicaMetrics(metrics.registry, () => deps.replicas.stats());
  // Other modules' gauges (e.g. realtime change capture) in the same registry.
  for (const register of registerMore) register(metrics.registry);
  // Callback style: no promise on every request. Fastify runs onResponse hooks for hijacked
  // replies too, so invocations (answered by the runtime straight to the socket) are counted.
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const fromFunction = FUNCTION_ROUTES.has(route);
    metrics.observeRequest(route, request.method, reply.statusCode, reply.elapsedTime / 1000, fromFunction);
    if (fromFunction) metrics.observeInvocation(reply.statusCode);
    done();
  });
  return metricsRoutes(metrics, access === 'public' ? 'public' : 'admin');
}
