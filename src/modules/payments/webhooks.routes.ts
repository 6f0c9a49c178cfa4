// POST /api/webhooks/processor/{environment}: the processor's signed events, taken as raw bytes
// (the signature covers them) and handed to the webhooks service.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../core/errors.js';
import { envParams, webhookReceiptSchema } from './payments.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

export function webhooksRoutes(webhooks: WebhooksService): FastifyPluginAsyncZod {
  return async (app) => {
    // The signature covers the exact bytes sent, so this scope keeps bodies raw.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    app.post('/api/webhooks/processor/:environment', {
      config: { access: 'public' },
      schema: {
        tags: ['payments'],
        summary: 'Signed events from the payment processor',
        params: envParams,
        headers: z.object({ 'stripe-signature': z.string().optional() }),
        response: { 200: webhookReceiptSchema },
      },
      handler: async (request) => {
        const signature = request.headers['stripe-signature'];
        if (!signature) throw new AppError('UNAUTHORIZED', 'The stripe-signature header is missing.');
        const body = request.body;
        if (!Buffer.isBuffer(body)) throw new AppError('VALIDATION_ERROR', 'The event body is missing.');
        return { received: true as const, ...(await webhooks.receive(request.params.environment, body, signature)) };
      },
    });
  };
}
