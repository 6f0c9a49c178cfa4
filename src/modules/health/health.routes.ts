// Liveness and readiness, for orchestrators: /api/health fails only when this process is wedged
// (restart it), /api/health/ready fails while it cannot serve (send it no traffic). docs/self-hosting.md, "Health checks".
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HealthService } from './health.service.js';

const publicAccess = { access: 'public' as const };

/** The function runtime as readiness reports it; it does not decide readiness (docs/self-hosting.md). */
const functionsRuntime = z.object({
  status: z.enum(['stopped', 'starting', 'running', 'unavailable']),
  restarts: z.number(),
  nextAttemptAt: z.string().nullable(),
});

export function healthRoutes(health: HealthService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/health', {
      config: publicAccess,
      schema: {
        tags: ['health'],
        summary: 'Liveness: the process is not wedged (restart it when this fails)',
        response: {
          200: z.object({
            status: z.literal('ok'),
            version: z.string().describe('the reference API version Plinth is compatible with (MCP servers check it)'),
            plinthVersion: z.string().describe("Plinth's own version"),
            service: z.string(),
            timestamp: z.string(),
          }),
          503: z.object({
            status: z.literal('wedged'),
            reason: z.string(),
            version: z.string(),
            plinthVersion: z.string(),
            service: z.string(),
            timestamp: z.string(),
          }),
        },
      },
      handler: async (_request, reply) => {
        const { base, wedged } = health.liveness();
        if (wedged) return reply.code(503).send({ status: 'wedged', reason: wedged, ...base });
        return { status: 'ok' as const, ...base };
      },
    });

    // Upgrades (issue 39, docs/upgrading.md): what `plinth upgrade check` compares a version's files with.
    app.get('/api/health/platform-migrations', {
      config: { access: 'admin' },
      schema: {
        tags: ['health'],
        summary: 'The platform migrations this database has applied, and any of this server it has not',
        security: [{ bearerAuth: [] }, { apiKey: [] }],
        response: {
          200: z.object({
            applied: z
              .array(z.string())
              .describe('applied platform migrations (db/migrations file names), oldest first'),
            pending: z
              .array(z.string())
              .describe("this server's platform migrations not applied (empty once it started)"),
          }),
        },
      },
      handler: async () => health.platformMigrations(),
    });

    app.get('/api/health/ready', {
      config: publicAccess,
      schema: {
        tags: ['health'],
        summary: 'Readiness: the database answers and every system migration is applied',
        response: {
          200: z.object({
            status: z.literal('ready'),
            database: z.literal('ok'),
            pendingMigrations: z.array(z.string()),
            functionsRuntime,
            warnings: z.array(z.string()).optional().describe('problems that do not stop serving'),
          }),
          503: z.object({
            status: z.literal('unavailable'),
            database: z.string(),
            pendingMigrations: z.array(z.string()),
            functionsRuntime,
            warnings: z.array(z.string()).optional().describe('problems that do not stop serving'),
          }),
        },
      },
      handler: async (_request, reply) => {
        const { ok, ...fields } = await health.readiness();
        if (ok) return { ...fields, status: 'ready' as const, database: 'ok' as const };
        return reply
          .code(503)
          .header('retry-after', '1')
          .send({ ...fields, status: 'unavailable' });
      },
    });
  };
}
