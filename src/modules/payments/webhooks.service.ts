// The processor's signed events: the signature is checked on the raw body (300 s tolerance, our
// clock), each event is applied once in one transaction; a failure rolls it back and is recorded,
// and answers 500 so the processor retries it.
import type Stripe from 'stripe';
import { z } from 'zod';
import { withTx } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import type { ConnectionsService } from './connections.service.js';
import type { Environment } from './processor.js';
import { applyEvent } from './webhook-handlers.js';
import * as repo from './webhooks.repo.js';

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
      environment: env,
      id: event.id,
      type: event.type,
      livemode: event.livemode,
      objectType: object.object ?? null,
      objectId: object.id ?? null,
    };
    const now = deps.clock.now();
    try {
      return await withTx(deps.sql, async (tx) => {
        const claimed = await repo.claimEvent(tx, meta, now);
        if (!claimed) return { handled: false, event: (await repo.findEvent(tx, env, event.id))! };
        const applied = await applyEvent(tx, env, event, now);
        const done = await repo.finishEvent(
          tx,
          env,
          event.id,
          { status: applied ? 'processed' : 'ignored', error: null },
          now,
        );
        return { handled: applied, event: done };
      });
    } catch (err) {
      await repo.recordFailure(deps.sql, meta, err instanceof Error ? err.message : String(err), now);
      // Whatever the cause, nothing was applied: a 5xx makes the processor deliver it again.
      throw new AppError(
        'INTERNAL_ERROR',
        'The event could not be applied; nothing was changed and the processor will retry it.',
        { cause: err },
      );
    }
  }

  return {
    /** Checks a delivery's signature and applies its event once; says whether it was acted on. */
    async receive(env: Environment, body: Buffer, signature: string) {
      return apply(env, await verify(env, body, signature));
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
