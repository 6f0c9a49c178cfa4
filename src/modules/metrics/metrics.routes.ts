// GET /metrics in the Prometheus text format; behind the API key (admin) unless METRICS_ACCESS
// makes it public.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Metrics } from './metrics-registry.js';

export function metricsRoutes(metrics: Metrics, access: 'admin' | 'public'): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/metrics', {
      config: { access },
      schema: {
        tags: ['operations'],
        summary: 'Prometheus metrics: request rate and latency, DB pool, function invocations, event loop, memory',
        ...(access === 'admin' ? { security: [{ bearerAuth: [] }] } : {}),
        response: { 200: z.string().describe('Prometheus text exposition format 0.0.4') },
      },
      handler: async (_request, reply) =>
        reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()),
    });
  };
}
