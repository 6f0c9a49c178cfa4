// Razorpay, the second payment processor: its services from the app's deps and its routes (the
// client's seven calls, the admin side, the webhook). payments.plugin.ts registers it.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../../deps.js';
import { razorpayAdminRoutes } from './admin.routes.js';
import { createRazorpayAdmin } from './admin.service.js';
import { razorpayCheckoutRoutes } from './checkout.routes.js';
import { createRazorpayCheckout } from './checkout.service.js';
import { createRazorpayConnections } from './connections.service.js';
import { razorpayWebhooksRoutes } from './webhooks.routes.js';
import { createRazorpayWebhooks } from './webhooks.service.js';

export function razorpayPlugin(deps: Deps): FastifyPluginAsyncZod {
  const connections = createRazorpayConnections(deps);
  const checkout = createRazorpayCheckout(deps, connections);
  const admin = createRazorpayAdmin(deps, connections);
  const webhooks = createRazorpayWebhooks(deps, connections);
  return async (app) => {
    await app.register(razorpayCheckoutRoutes(checkout));
    await app.register(razorpayAdminRoutes(connections, admin));
    await app.register(razorpayWebhooksRoutes(webhooks));
  };
}
