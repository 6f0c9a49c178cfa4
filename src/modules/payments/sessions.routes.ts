// Routes that open processor-hosted pages for a billing subject: the customer portal (access
// tokens only) and checkout (access tokens or the anon key, for guest checkout).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../core/errors.js';
import { principalOf } from '../../http/principal.js';
import {
  checkoutCreateSchema,
  checkoutSessionSchema,
  envParams,
  portalCreateSchema,
  portalSessionSchema,
} from './payments.schemas.js';
import type { createSessionsService } from './sessions.service.js';

const tags = ['payments'];
const security = [{ bearerAuth: [] }];

export function sessionsRoutes(
  sessions: ReturnType<typeof createSessionsService>,
  base: string,
): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(`${base}/:environment/customer-portal-sessions`, {
      config: { access: 'token' },
      schema: {
        tags,
        summary: 'Open the customer portal for a billing subject the caller may act for',
        security,
        params: envParams,
        body: portalCreateSchema,
        response: { 201: z.object({ customerPortalSession: portalSessionSchema }) },
      },
      handler: async (request, reply) => {
        const session = await sessions.createPortalSession(
          request.params.environment,
          principalOf(request),
          request.body,
        );
        return reply.code(201).send({ customerPortalSession: session });
      },
    });

    app.post(`${base}/:environment/checkout-sessions`, {
      config: { access: 'client' },
      schema: {
        tags,
        summary: 'Open a checkout session (guest checkout without a subject)',
        security,
        params: envParams,
        body: checkoutCreateSchema,
        response: { 201: z.object({ checkoutSession: checkoutSessionSchema }) },
      },
      handler: async (request, reply) => {
        const principal = principalOf(request);
        if (principal.kind === 'admin' && principal.via === 'apiKey') {
          throw new AppError('UNAUTHORIZED', 'Checkout session creation requires a user token.', {
            nextActions: 'Call this from the app with the user access token or the anon key.',
          });
        }
        const session = await sessions.createCheckoutSession(request.params.environment, principal, request.body);
        return reply.code(201).send({ checkoutSession: session });
      },
    });
  };
}
