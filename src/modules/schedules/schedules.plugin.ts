// Wires the schedules module's routes to its service.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { schedulesRoutes } from './schedules.routes.js';
import { createSchedulesService } from './schedules.service.js';

export function schedulesPlugin(deps: Deps): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(schedulesRoutes(createSchedulesService(deps)));
  };
}
