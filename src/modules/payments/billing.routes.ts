// Admin routes of the billing mirror: subscriptions (with items) and sync from the processor.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { BillingService } from './billing.service.js';
import {
  envParams,
  subscriptionSchema,
  subjectFilter,
  subscriptionsQuery,
  syncResultsSchema,
} from './payments.schemas.js';
import type { SyncService } from './sync.service.js';

const tags = ['payments'];
const config = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];

export function billingRoutes(billing: BillingService, sync: SyncService, base: string): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(`${base}/:environment/subscriptions`, {
      config,
      schema: {
        tags,
        summary: 'Subscriptions with their items, newest change first',
        security,
        params: envParams,
        querystring: subscriptionsQuery,
        response: { 200: z.object({ subscriptions: z.array(subscriptionSchema) }) },
      },
      handler: async (request) => ({
        subscriptions: await billing.listSubscriptions(
          request.params.environment,
          subjectFilter(request.query),
          request.query.limit,
        ),
      }),
    });

    app.post(`${base}/sync`, {
      config,
      schema: {
        tags,
        summary: 'Sync every configured environment from the processor',
        security,
        response: { 200: syncResultsSchema },
      },
      handler: () => sync.syncAll(),
    });
    app.post(`${base}/:environment/sync`, {
      config,
      schema: {
        tags,
        summary: 'Sync one environment from the processor',
        security,
        params: envParams,
        response: { 200: syncResultsSchema },
      },
      handler: (request) => sync.syncEnvironment(request.params.environment),
    });
  };
}
