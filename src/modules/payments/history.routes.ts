// Admin reads of who pays and what was paid: mirrored customers with their spend, and the payment
// history (also at …/transactions, the current client's name for it), newest first.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { HistoryService } from './history.service.js';
import {
  customerSchema,
  customersQuery,
  envParams,
  paymentHistorySchema,
  subjectFilter,
  subscriptionsQuery,
} from './payments.schemas.js';

const tags = ['payments'];
const config = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];

export function historyRoutes(history: HistoryService, base: string): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(`${base}/:environment/customers`, {
      config,
      schema: {
        tags,
        summary: 'Customers with their payment count, last payment, spend and card, latest payer first',
        security,
        params: envParams,
        querystring: customersQuery,
        response: { 200: z.object({ customers: z.array(customerSchema) }) },
      },
      handler: async (request) => ({
        customers: await history.listCustomers(request.params.environment, request.query.limit),
      }),
    });

    for (const path of ['payment-history', 'transactions']) {
      app.get(`${base}/:environment/${path}`, {
        config,
        schema: {
          tags,
          summary: 'Payments, invoices, refunds and failed payments, newest first',
          security,
          params: envParams,
          querystring: subscriptionsQuery,
          response: { 200: z.object({ paymentHistory: z.array(paymentHistorySchema) }) },
        },
        handler: async (request) => {
          const { environment } = request.params;
          return {
            paymentHistory: await history.listHistory(environment, subjectFilter(request.query), request.query.limit),
          };
        },
      });
    }
  };
}
