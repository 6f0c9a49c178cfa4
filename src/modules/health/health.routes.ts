// Liveness and readiness.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { pendingMigrations } from '../../core/migrator.js';
import type { Deps } from '../../deps.js';

export const VERSION = '0.1.0';

/** The function runtime as readiness reports it; it does not decide readiness (see README). */
const functionsRuntime = z.object({
  status: z.enum(['stopped', 'starting', 'running', 'unavailable']),
  restarts: z.number(),
  nextAttemptAt: z.string().nullable(),
});

export function healthRoutes(deps: Deps): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/health', {
      schema: {
        tags: ['health'],
        summary: 'Liveness: the server is up',
        response: {
          200: z.object({ status: z.literal('ok'), version: z.string(), service: z.string(), timestamp: z.string() }),
        },
      },
      handler: async () => ({ status: 'ok' as const, version: VERSION, service: 'Plinth', timestamp: deps.clock.now().toISOString() }),
    });

    app.get('/api/health/ready', {
      schema: {
        tags: ['health'],
        summary: 'Readiness: the database answers and every system migration is applied',
        response: {
          200: z.object({ status: z.literal('ready'), database: z.literal('ok'), pendingMigrations: z.array(z.string()), functionsRuntime }),
          503: z.object({ status: z.literal('unavailable'), database: z.string(), pendingMigrations: z.array(z.string()), functionsRuntime }),
        },
      },
      handler: async (_request, reply) => {
        const { status, restarts, nextAttemptAt } = deps.functions.runtime.health;
        const runtime = { functionsRuntime: { status, restarts, nextAttemptAt } };
        try {
          const pending = await pendingMigrations(deps.sql, deps.migrations);
          if (pending.length === 0) return { status: 'ready' as const, database: 'ok' as const, pendingMigrations: [], ...runtime };
          return reply.code(503).send({ status: 'unavailable', database: 'ok', pendingMigrations: pending, ...runtime });
        } catch {
          return reply.code(503).send({ status: 'unavailable', database: 'unreachable', pendingMigrations: [], ...runtime });
        }
      },
    });
  };
}
