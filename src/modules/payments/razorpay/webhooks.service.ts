// Razorpay's signed webhook deliveries: X-Razorpay-Signature is the hex HMAC-SHA256 of the raw
// body with the environment's webhook secret (or, during a rotation's grace period, the previous
// one), compared in constant time; each event is applied once (webhook-once.ts).
import { z } from 'zod';
import { AppError } from '../../../core/errors.js';
import type { Deps } from '../../../deps.js';
import type { Environment } from '../processor.js';
import { applyEventOnce } from '../webhook-once.js';
import { signatureMatches } from './client.js';
import type { RazorpayConnections } from './connections.service.js';
import * as mirror from './mirror.repo.js';
import { applyRazorpayEvent, type RazorpayEvent } from './webhook-handlers.js';

const eventShape = z.looseObject({
  entity: z.literal('event').optional(),
  account_id: z.string().optional(),
  event: z.string().min(1),
  contains: z.array(z.string()).optional(),
  payload: z.record(z.string(), z.unknown()),
  created_at: z.number().optional(),
});

/** Razorpay's event id header when sent, else one built from what identifies the event. */
function eventIdOf(event: RazorpayEvent, header: string | undefined): string {
  if (header) return header;
  const first = event.contains?.[0];
  const entityId = (first && event.payload[first]?.entity?.id) || 'no_entity';
  return `${event.account_id ?? 'no_account'}.${event.event}.${entityId}.${event.created_at ?? 0}`;
}

export function createRazorpayWebhooks(deps: Deps, connections: RazorpayConnections) {
  async function verify(env: Environment, body: Buffer, signature: string): Promise<RazorpayEvent> {
    const secrets = await connections.webhookSecrets(env);
    if (secrets.length === 0) {
      throw new AppError('PAYMENT_CONFIG_NOT_FOUND', `Razorpay ${env} has no webhook secret.`, {
        status: 400,
        nextActions: `The admin stores the keys with PUT /api/payments/razorpay/${env}/config, then copies the secret from GET /api/payments/razorpay/${env}/webhook into Razorpay's webhook settings.`,
      });
    }
    // Every secret is tried (no early exit), so timing does not tell which one matched.
    const matches = secrets.map((secret) => signatureMatches(secret, body, signature));
    if (!matches.includes(true)) {
      throw new AppError('VALIDATION_ERROR', 'Invalid Razorpay webhook signature.', {
        nextActions: `The webhook secret in Razorpay's dashboard must equal the one of GET /api/payments/razorpay/${env}/webhook, and the webhook URL must end in /api/webhooks/razorpay/${env}.`,
      });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw new AppError('VALIDATION_ERROR', 'Invalid Razorpay webhook payload.');
    }
    const shape = eventShape.safeParse(parsed);
    if (!shape.success) {
      throw new AppError('VALIDATION_ERROR', 'Invalid Razorpay webhook payload.', {
        details: shape.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
      });
    }
    return shape.data as RazorpayEvent;
  }

  return {
    async receive(env: Environment, body: Buffer, signature: string, eventIdHeader: string | undefined) {
      const event = await verify(env, body, signature);
      if (event.account_id) await mirror.recordAccount(deps.sql, env, event.account_id);
      const first = event.contains?.[0];
      const entity = first ? event.payload[first]?.entity : undefined;
      const meta = {
        provider: 'razorpay' as const,
        environment: env,
        id: eventIdOf(event, eventIdHeader),
        type: event.event,
        livemode: env === 'live',
        objectType: typeof entity?.entity === 'string' ? entity.entity : (first ?? null),
        objectId: typeof entity?.id === 'string' ? entity.id : null,
      };
      const { handled } = await applyEventOnce(deps, meta, (tx, now) => applyRazorpayEvent(tx, env, event, now));
      return { received: true as const, handled };
    },
  };
}

export type RazorpayWebhooks = ReturnType<typeof createRazorpayWebhooks>;
