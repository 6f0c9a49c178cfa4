// Admin routes of the billing mirror: subscriptions (with items) and sync from the processor.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import * as billing from './billing.repo.js';
import {
  envParams,
  subscriptionSchema,
  subjectFilter,
  subscriptionsQuery,
  syncResultsSchema,
} from './payments.schemas.js';
import type { createSyncService } from './sync.service.js';

const tags = ['payments'];
const config = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];

type Item = { createdAt: string | Date; updatedAt: string | Date };
const withItemDates = <T extends { items: Item[] }>(row: T) => ({
  ...row,
  items: row.items.map((i) => ({ ...i, createdAt: new Date(i.createdAt), updatedAt: new Date(i.updatedAt) })),
});

export function billingRoutes(
  deps: Deps,
  sync: ReturnType<typeof createSyncService>,
  base: string,
): FastifyPluginAsyncZod {
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
      handler: async (request) => {
        const rows = await billing.listSubscriptions(
          deps.sql,
          request.params.environment,
          subjectFilter(request.query),
          request.query.limit,
        );
        return { subscriptions: rows.map((r) => withItemDates(r as never)) };
      },
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
