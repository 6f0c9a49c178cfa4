// POST /api/webhooks/razorpay/{environment}: Razorpay's signed events, taken as raw bytes (the
// signature covers them exactly) and handed to the Razorpay webhooks service.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../../core/errors.js';
import { rzpEnvParams } from './razorpay.schemas.js';
import type { RazorpayWebhooks } from './webhooks.service.js';

export function razorpayWebhooksRoutes(webhooks: RazorpayWebhooks): FastifyPluginAsyncZod {
  return async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    app.post('/api/webhooks/razorpay/:environment', {
      config: { access: 'public' },
      schema: {
        tags: ['payments'],
        summary: 'Signed events from Razorpay',
        params: rzpEnvParams,
        headers: z.object({
          'x-razorpay-signature': z.string().optional(),
          'x-razorpay-event-id': z.string().optional(),
        }),
        response: { 200: z.object({ received: z.literal(true), handled: z.boolean() }) },
      },
      handler: async (request) => {
        const signature = request.headers['x-razorpay-signature'];
        if (!signature) {
          throw new AppError('UNAUTHORIZED', 'Missing X-Razorpay-Signature header.', {
            nextActions: 'Only Razorpay’s signed deliveries are accepted here.',
          });
        }
        const body = request.body;
        if (!Buffer.isBuffer(body) || body.length === 0) {
          throw new AppError('VALIDATION_ERROR', 'The event body is missing.');
        }
        return webhooks.receive(request.params.environment, body, signature, request.headers['x-razorpay-event-id']);
      },
    });
  };
}
