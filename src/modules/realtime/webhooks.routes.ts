// /api/realtime/webhook-deliveries: the admin delivery log of channel webhooks and a retry.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { deliveryIdParams, deliverySchema, listDeliveriesQuery } from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

const tags = ['realtime'];
const config = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];

export function webhooksRoutes(webhooks: WebhooksService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/realtime/webhook-deliveries', {
      config,
      schema: {
        tags,
        summary: 'Webhook deliveries (one per message and URL), newest first',
        security,
        querystring: listDeliveriesQuery,
        response: { 200: z.array(deliverySchema) },
      },
      handler: (request) => webhooks.list(request.query),
    });

    app.post('/api/realtime/webhook-deliveries/:id/retry', {
      config,
      schema: {
        tags,
        summary: 'Attempt a delivery again now (its attempts counted from zero)',
        security,
        params: deliveryIdParams,
        response: { 200: deliverySchema },
      },
      handler: (request) => webhooks.retry(request.params.id),
    });
  };
}
