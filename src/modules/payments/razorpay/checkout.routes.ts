// The official client's seven Razorpay calls under /api/payments/razorpay/{environment}: orders
// (user tokens and the anon key, for guests), subscriptions (user tokens), and the checks of
// what Razorpay Checkout returned. The API key has no user behind it and is refused.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../../core/errors.js';
import type { Principal } from '../../../core/principal.js';
import { principalOf } from '../../../http/principal.js';
import type { RazorpayCheckout } from './checkout.service.js';
import {
  cancelSchema,
  emptySchema,
  orderCreatedSchema,
  orderCreateSchema,
  orderSchema,
  orderVerifySchema,
  rzpEnvParams,
  rzpSubscriptionParams,
  subscriptionCreatedSchema,
  subscriptionCreateSchema,
  subscriptionSchema,
  subscriptionVerifySchema,
} from './razorpay.schemas.js';

const tags = ['payments'];
const security = [{ bearerAuth: [] }];
const BASE = '/api/payments/razorpay/:environment';

/** The caller as a person: the API key (no user behind it) cannot pay or manage subscriptions. */
function personOf(request: Parameters<typeof principalOf>[0], what: string): Principal {
  const principal = principalOf(request);
  if (principal.kind === 'admin' && principal.via === 'apiKey') {
    throw new AppError('UNAUTHORIZED', `Razorpay ${what} requires a user token.`, {
      nextActions: 'Call this from the app with the user access token (or the anon key where guests may pay).',
    });
  }
  return principal;
}

export function razorpayCheckoutRoutes(checkout: RazorpayCheckout): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(`${BASE}/orders`, {
      config: { access: 'client' },
      schema: {
        tags,
        summary: 'Create a Razorpay order for Checkout (guests without a subject)',
        security,
        params: rzpEnvParams,
        body: orderCreateSchema,
        response: { 201: orderCreatedSchema },
      },
      handler: async (request, reply) => {
        const principal = personOf(request, 'order creation');
        const created = await checkout.createOrder(request.params.environment, principal, request.body);
        return reply.code(201).send(created);
      },
    });

    app.post(`${BASE}/orders/verify`, {
      config: { access: 'client' },
      schema: {
        tags,
        summary: 'Verify the payment signature Razorpay Checkout returned for an order',
        security,
        params: rzpEnvParams,
        body: orderVerifySchema,
        response: { 200: z.object({ verified: z.literal(true), order: orderSchema }) },
      },
      handler: async (request) => {
        personOf(request, 'order verification');
        return checkout.verifyOrder(request.params.environment, request.body);
      },
    });

    app.post(`${BASE}/subscriptions`, {
      config: { access: 'token' },
      schema: {
        tags,
        summary: 'Create a Razorpay subscription of a plan for a billing subject the caller may act for',
        security,
        params: rzpEnvParams,
        body: subscriptionCreateSchema,
        response: { 201: subscriptionCreatedSchema },
      },
      handler: async (request, reply) => {
        const created = await checkout.createSubscription(
          request.params.environment,
          principalOf(request),
          request.body,
        );
        return reply.code(201).send(created);
      },
    });

    app.post(`${BASE}/subscriptions/verify`, {
      config: { access: 'client' },
      schema: {
        tags,
        summary: 'Verify the authorisation payment signature Razorpay Checkout returned for a subscription',
        security,
        params: rzpEnvParams,
        body: subscriptionVerifySchema,
        response: { 200: z.object({ verified: z.literal(true), subscription: subscriptionSchema }) },
      },
      handler: async (request) => {
        personOf(request, 'subscription verification');
        return checkout.verifySubscription(request.params.environment, request.body);
      },
    });

    for (const action of ['cancel', 'pause', 'resume'] as const) {
      app.post(`${BASE}/subscriptions/:subscriptionId/${action}`, {
        config: { access: 'token' },
        schema: {
          tags,
          summary: `${action[0]!.toUpperCase()}${action.slice(1)} a Razorpay subscription the caller may manage`,
          security,
          params: rzpSubscriptionParams,
          body: action === 'cancel' ? cancelSchema : emptySchema,
          response: { 200: z.object({ subscription: subscriptionSchema }) },
        },
        handler: async (request) => {
          const { environment, subscriptionId } = request.params;
          const body = request.body as { cancelAtCycleEnd?: boolean };
          return checkout.manageSubscription(
            environment,
            principalOf(request),
            subscriptionId,
            action,
            body.cancelAtCycleEnd === true,
          );
        },
      });
    }
  };
}
