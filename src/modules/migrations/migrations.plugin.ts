// Registers the migrations routes: the history of user migrations, applying one, a dry run and
// forgetting the history. `refreshSchema` reloads the records API's schema cache after DDL.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { migrationsRoutes } from './migrations.routes.js';
import { createMigrationsService } from './migrations.service.js';

export function migrationsPlugin(deps: Deps, refreshSchema: () => Promise<unknown>): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(migrationsRoutes(createMigrationsService(deps, refreshSchema)));
  };
}
