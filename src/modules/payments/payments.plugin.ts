// Wires the payments module: its services from the app's deps, and every payments route.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { billingRoutes } from './billing.routes.js';
import { catalogRoutes } from './catalog.routes.js';
import { createCatalogService } from './catalog.service.js';
import { createConnectionsService } from './connections.service.js';
import { createSessionsService } from './sessions.service.js';
import { sessionsRoutes } from './sessions.routes.js';
import { createSyncService } from './sync.service.js';
import { webhooksRoutes } from './webhooks.routes.js';

export function paymentsPlugin(deps: Deps): FastifyPluginAsyncZod {
  const connections = createConnectionsService(deps);
  const catalog = createCatalogService(deps, connections);
  const sync = createSyncService(deps, connections);
  return async (app) => {
    await app.register(catalogRoutes(connections, catalog));
    await app.register(billingRoutes(deps, sync));
    await app.register(sessionsRoutes(createSessionsService(deps, connections)));
    await app.register(webhooksRoutes(deps, connections));
  };
}
