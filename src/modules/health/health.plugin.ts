// Registers liveness and readiness; the liveness monitor runs for the app's lifetime.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { healthRoutes } from './health.routes.js';
import { createHealthService } from './health.service.js';

/** `warnings`: what other modules report without failing readiness (e.g. WAL a replication slot retains). */
export function healthPlugin(deps: Deps, warnings?: () => Promise<string[]>): FastifyPluginAsyncZod {
  return async (app) => {
    const health = createHealthService(deps, warnings);
    app.addHook('onClose', async () => health.stop());
    await app.register(healthRoutes(health));
  };
}
