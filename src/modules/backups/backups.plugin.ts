// Wires the backups module's routes to its service; `refreshSchema` reloads the records API's
// schema cache after a restore. Dumps still running when the app closes are awaited.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { backupsRoutes } from './backups.routes.js';
import { createBackupsService } from './backups.service.js';

export function backupsPlugin(deps: Deps, refreshSchema: () => Promise<unknown>): FastifyPluginAsyncZod {
  return async (app) => {
    const service = createBackupsService(deps, refreshSchema);
    app.addHook('onClose', () => service.settled());
    await app.register(backupsRoutes(service));
  };
}
