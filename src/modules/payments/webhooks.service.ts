// The processor's signed events: the signature is checked on the raw body (300 s tolerance, our
// clock), each event is applied once (webhook-once.ts, shared with Razorpay).
import type Stripe from 'stripe';
import { z } from 'zod';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import type { ConnectionsService } from './connections.service.js';
import type { Environment } from './processor.js';
import { applyEvent } from './webhook-handlers.js';
import { applyEventOnce } from './webhook-once.js';

const TOLERANCE_SECONDS = 300;

/** What the handlers rely on in a signed event before they read it. */
const signedEventShape = z.object({
  id: z.string().min(1),
  type: z.string().min(1),
  livemode: z.boolean(),
  data: z.object({ object: z.looseObject({}) }),
});

export function createWebhooksService(deps: Pick<Deps, 'sql' | 'clock'>, connections: ConnectionsService) {
  async function verify(env: Environment, body: Buffer, signature: string): Promise<Stripe.Event> {
    const secret = await connections.webhookSecret(env);
    if (secret === undefined) {
      throw new AppError('SERVICE_UNAVAILABLE', `PROCESSOR_${env.toUpperCase()}_WEBHOOK_SECRET is not configured.`, {
        nextActions: `Store it with PUT /api/payments/${env}/config ({secretKey, webhookSecret}).`,
      });
    }
    // The SDK is loaded on the first event, not at start (Node caches it after that).
    const { default: StripeSdk } = await import('stripe');
    let event: Stripe.Event;
    try {
      event = StripeSdk.webhooks.constructEvent(
        body,
        signature,
        secret,
        TOLERANCE_SECONDS,
        undefined,
        deps.clock.now().getTime(),
      );
    } catch (err) {
      throw new AppError('VALIDATION_ERROR', 'Invalid webhook signature.', {
        cause: err,
        details: (err as Error).message,
      });
    }
    const shape = signedEventShape.safeParse(event);
    if (!shape.success) {
      throw new AppError(
        'VALIDATION_ERROR',
        'The signed event is not a processor event (it needs an id, a type, livemode and data.object).',
        {
          details: shape.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
        },
      );
    }
    if (event.livemode !== (env === 'live')) {
      throw new AppError(
        'VALIDATION_ERROR',
        `A ${event.livemode ? 'live' : 'test'} event was sent to the ${env} endpoint.`,
      );
    }
    return event;
  }

  async function apply(env: Environment, event: Stripe.Event) {
    const object = event.data.object as { id?: string; object?: string };
    const meta = {
      provider: 'stripe' as const,
      environment: env,
      id: event.id,
      type: event.type,
      livemode: event.livemode,
      objectType: object.object ?? null,
      objectId: object.id ?? null,
    };
    return applyEventOnce(deps, meta, (tx, now) => applyEvent(tx, env, event, now));
  }

  return {
    /** Checks a delivery's signature and applies its event once; says whether it was acted on. */
    async receive(env: Environment, body: Buffer, signature: string) {
      return apply(env, await verify(env, body, signature));
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
