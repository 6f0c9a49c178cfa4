// The admin's Razorpay routes: keys per environment (stored as reserved secrets), status, sync,
// the webhook URL and secret (with rotation), catalog items and plans, customers, transactions
// and subscriptions. All admin-only.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { RazorpayAdmin } from './admin.service.js';
import type { RazorpayConnections } from './connections.service.js';
import {
  itemCreateSchema,
  itemSchema,
  itemUpdateSchema,
  limitQuery,
  planCreateSchema,
  planSchema,
  rzpConfigBodySchema,
  rzpConnectionSchema,
  rzpCustomerSchema,
  rzpEnvParams,
  rzpItemParams,
  rzpKeysSchema,
  rzpSyncResultSchema,
  rzpWebhookSchema,
  subjectListQuery,
  subscriptionSchema,
  transactionSchema,
} from './razorpay.schemas.js';

const tags = ['payments'];
const config = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];
const ROOT = '/api/payments/razorpay';
const BASE = `${ROOT}/:environment`;

const subjectFilter = (q: { subjectType?: string; subjectId?: string }) =>
  q.subjectType && q.subjectId ? { type: q.subjectType, id: q.subjectId } : null;

export function razorpayAdminRoutes(connections: RazorpayConnections, admin: RazorpayAdmin): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(`${ROOT}/status`, {
      config,
      schema: {
        tags,
        summary: 'Razorpay connection of each environment',
        security,
        response: { 200: z.object({ razorpayConnections: z.array(rzpConnectionSchema) }) },
      },
      handler: () => connections.status(),
    });
    app.get(`${ROOT}/config`, {
      config,
      schema: {
        tags,
        summary: 'Razorpay keys of each environment, masked',
        security,
        response: { 200: rzpKeysSchema },
      },
      handler: () => connections.keys(),
    });
    app.post(`${ROOT}/sync`, {
      config,
      schema: {
        tags,
        summary: 'Pull every configured environment’s Razorpay data into the mirror',
        security,
        response: { 200: rzpSyncResultSchema },
      },
      handler: () => admin.syncAll(),
    });
    app.put(`${BASE}/config`, {
      config,
      schema: {
        tags,
        summary: 'Store the environment’s Razorpay key pair (checked with Razorpay first)',
        security,
        params: rzpEnvParams,
        body: rzpConfigBodySchema,
        response: { 200: rzpKeysSchema },
      },
      handler: (request) => connections.configure(request.params.environment, request.body),
    });
    app.delete(`${BASE}/config`, {
      config,
      schema: {
        tags,
        summary: 'Remove the environment’s Razorpay keys',
        security,
        params: rzpEnvParams,
        response: { 200: rzpKeysSchema },
      },
      handler: (request) => connections.remove(request.params.environment),
    });
    app.post(`${BASE}/sync`, {
      config,
      schema: {
        tags,
        summary: 'Pull the environment’s Razorpay data into the mirror',
        security,
        params: rzpEnvParams,
        response: { 200: rzpSyncResultSchema },
      },
      handler: (request) => admin.syncOne(request.params.environment),
    });
    app.get(`${BASE}/webhook`, {
      config,
      schema: {
        tags,
        summary: 'The webhook URL and secret to enter in Razorpay’s dashboard',
        security,
        params: rzpEnvParams,
        response: { 200: rzpWebhookSchema },
      },
      handler: (request) => connections.webhookView(request.params.environment),
    });
    app.post(`${BASE}/webhook/rotate-secret`, {
      config,
      schema: {
        tags,
        summary: 'A new webhook secret; the previous one verifies deliveries for a grace period',
        security,
        params: rzpEnvParams,
        response: { 200: rzpWebhookSchema },
      },
      handler: (request) => connections.rotateWebhookSecret(request.params.environment),
    });
    app.get(`${BASE}/catalog`, {
      config,
      schema: {
        tags,
        summary: 'Mirrored Razorpay items and plans',
        security,
        params: rzpEnvParams,
        response: { 200: z.object({ items: z.array(itemSchema), plans: z.array(planSchema) }) },
      },
      handler: (request) => admin.catalog(request.params.environment),
    });
    app.post(`${BASE}/catalog/items`, {
      config,
      schema: {
        tags,
        summary: 'Create a Razorpay item',
        security,
        params: rzpEnvParams,
        body: itemCreateSchema,
        response: { 201: z.object({ item: itemSchema }) },
      },
      handler: async (request, reply) =>
        reply.code(201).send(await admin.createItem(request.params.environment, request.body)),
    });
    app.patch(`${BASE}/catalog/items/:itemId`, {
      config,
      schema: {
        tags,
        summary: 'Update a Razorpay item',
        security,
        params: rzpItemParams,
        body: itemUpdateSchema,
        response: { 200: z.object({ item: itemSchema }) },
      },
      handler: (request) => admin.updateItem(request.params.environment, request.params.itemId, request.body),
    });
    app.post(`${BASE}/catalog/plans`, {
      config,
      schema: {
        tags,
        summary: 'Create a Razorpay plan (with its item)',
        security,
        params: rzpEnvParams,
        body: planCreateSchema,
        response: { 201: z.object({ plan: planSchema }) },
      },
      handler: async (request, reply) =>
        reply.code(201).send(await admin.createPlan(request.params.environment, request.body)),
    });
    app.get(`${BASE}/customers`, {
      config,
      schema: {
        tags,
        summary: 'Mirrored Razorpay customers with the billing subject they pay for',
        security,
        params: rzpEnvParams,
        querystring: limitQuery,
        response: { 200: z.object({ customers: z.array(rzpCustomerSchema) }) },
      },
      handler: (request) => admin.customers(request.params.environment, request.query.limit),
    });
    app.get(`${BASE}/transactions`, {
      config,
      schema: {
        tags,
        summary: 'Razorpay payments, refunds and invoices, newest first',
        security,
        params: rzpEnvParams,
        querystring: subjectListQuery,
        response: { 200: z.object({ transactions: z.array(transactionSchema) }) },
      },
      handler: (request) =>
        admin.transactions(request.params.environment, subjectFilter(request.query), request.query.limit),
    });
    app.get(`${BASE}/subscriptions`, {
      config,
      schema: {
        tags,
        summary: 'Mirrored Razorpay subscriptions, latest change first',
        security,
        params: rzpEnvParams,
        querystring: subjectListQuery,
        response: { 200: z.object({ subscriptions: z.array(subscriptionSchema) }) },
      },
      handler: (request) =>
        admin.subscriptions(request.params.environment, subjectFilter(request.query), request.query.limit),
    });
  };
}
