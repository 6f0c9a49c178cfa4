// Wires the usage module: the /api/usage/mcp routes over the system.mcp_usage table.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { usageRoutes } from './usage.routes.js';
import { createUsageService } from './usage.service.js';

export function usagePlugin(deps: Pick<Deps, 'sql' | 'clock'>): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(usageRoutes(createUsageService(deps)));
  };
}
