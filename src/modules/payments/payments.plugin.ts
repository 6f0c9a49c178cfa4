// Wires the payments module: its services from the app's deps, and every payments route, also
// under /api/payments/stripe/… (the path the official client calls; hidden from the API docs),
// and the processor's webhook at /api/webhooks/processor/{environment}; Razorpay (the second
// processor) under /api/payments/razorpay/… and /api/webhooks/razorpay/{environment}.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { billingRoutes } from './billing.routes.js';
import { createBillingService } from './billing.service.js';
import { catalogRoutes } from './catalog.routes.js';
import { createCatalogService } from './catalog.service.js';
import { createConnectionsService } from './connections.service.js';
import { historyRoutes } from './history.routes.js';
import { razorpayPlugin } from './razorpay/index.js';
import { createHistoryService } from './history.service.js';
import { createSessionsService } from './sessions.service.js';
import { sessionsRoutes } from './sessions.routes.js';
import { createSyncService } from './sync.service.js';
import { webhooksRoutes } from './webhooks.routes.js';
import { createWebhooksService } from './webhooks.service.js';

export const PAYMENTS_ALIAS_BASE = '/api/payments/stripe';

export function paymentsPlugin(deps: Deps): FastifyPluginAsyncZod {
  const connections = createConnectionsService(deps);
  const catalog = createCatalogService(deps, connections);
  const sync = createSyncService(deps, connections);
  const sessions = createSessionsService(deps, connections);
  const webhooks = createWebhooksService(deps, connections);
  const billing = createBillingService(deps);
  const history = createHistoryService(deps);
  return async (app) => {
    for (const base of ['/api/payments', PAYMENTS_ALIAS_BASE]) {
      await app.register(async (scope) => {
        if (base === PAYMENTS_ALIAS_BASE) {
          scope.addHook('onRoute', (route) => {
            route.schema = { ...route.schema, hide: true };
          });
        }
        await scope.register(catalogRoutes(connections, catalog, base));
        await scope.register(billingRoutes(billing, sync, base));
        await scope.register(sessionsRoutes(sessions, base));
        await scope.register(historyRoutes(history, base));
      });
    }
    await app.register(webhooksRoutes(webhooks));
    await app.register(razorpayPlugin(deps));
  };
}
