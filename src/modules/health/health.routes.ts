// Liveness and readiness, for orchestrators: /api/health fails only when this process is wedged
// (restart it), /api/health/ready fails while it cannot serve (send it no traffic). README "Health checks".
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { guardOf } from '../../core/db.js';
import { pendingMigrations } from '../../core/migrator.js';
import type { Deps } from '../../deps.js';
import { startLivenessMonitor } from './liveness.js';

export const VERSION = '0.1.0';

/** How long readiness waits for the database before it calls it unreachable. */
const READY_DATABASE_BOUND_MS = 2_000;

/** One readiness check: whether it passes and the fields it adds to the answer. Add one to `checks`. */
type ReadinessCheck = () => Promise<{ ok: boolean; fields: Record<string, unknown> }>;

const withinBound = <T>(work: Promise<T>, ms: number): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timed out')), ms);
  });
  return Promise.race([work, bound]).finally(() => clearTimeout(timer));
};

/** The function runtime as readiness reports it; it does not decide readiness (see README). */
const functionsRuntime = z.object({
  status: z.enum(['stopped', 'starting', 'running', 'unavailable']),
  restarts: z.number(),
  nextAttemptAt: z.string().nullable(),
});

export function healthRoutes(deps: Deps): FastifyPluginAsyncZod {
  return async (app) => {
    const liveness = startLivenessMonitor(guardOf(deps.sql));
    app.addHook('onClose', async () => liveness.stop());
    const checks: ReadinessCheck[] = [
      async () => {
        try {
          const pending = await withinBound(pendingMigrations(deps.sql, deps.migrations), READY_DATABASE_BOUND_MS);
          return { ok: pending.length === 0, fields: { database: 'ok', pendingMigrations: pending } };
        } catch {
          return { ok: false, fields: { database: 'unreachable', pendingMigrations: [] } };
        }
      },
      // The rest of the API serves without the function runtime: reported, never failing readiness.
      async () => {
        const { status, restarts, nextAttemptAt } = deps.functions.runtime.health;
        return { ok: true, fields: { functionsRuntime: { status, restarts, nextAttemptAt } } };
      },
    ];

    app.get('/api/health', {
      schema: {
        tags: ['health'],
        summary: 'Liveness: the process is not wedged (restart it when this fails)',
        response: {
          200: z.object({ status: z.literal('ok'), version: z.string(), service: z.string(), timestamp: z.string() }),
          503: z.object({
            status: z.literal('wedged'),
            reason: z.string(),
            version: z.string(),
            service: z.string(),
            timestamp: z.string(),
          }),
        },
      },
      handler: async (_request, reply) => {
        const base = { version: VERSION, service: 'Plinth', timestamp: deps.clock.now().toISOString() };
        const reason = liveness.wedged();
        if (reason) return reply.code(503).send({ status: 'wedged', reason, ...base });
        return { status: 'ok' as const, ...base };
      },
    });

    app.get('/api/health/ready', {
      schema: {
        tags: ['health'],
        summary: 'Readiness: the database answers and every system migration is applied',
        response: {
          200: z.object({
            status: z.literal('ready'),
            database: z.literal('ok'),
            pendingMigrations: z.array(z.string()),
            functionsRuntime,
          }),
          503: z.object({
            status: z.literal('unavailable'),
            database: z.string(),
            pendingMigrations: z.array(z.string()),
            functionsRuntime,
          }),
        },
      },
      handler: async (_request, reply) => {
        const results = await Promise.all(checks.map((check) => check()));
        const fields = Object.assign({}, ...results.map((r) => r.fields)) as {
          database: string;
          pendingMigrations: string[];
          functionsRuntime: z.infer<typeof functionsRuntime>;
        };
        if (results.every((r) => r.ok)) return { ...fields, status: 'ready' as const, database: 'ok' as const };
        return reply
          .code(503)
          .header('retry-after', '1')
          .send({ ...fields, status: 'unavailable' });
      },
    });
  };
}
