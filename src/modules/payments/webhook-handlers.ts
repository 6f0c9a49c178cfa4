// What each processor event does to the mirror and the payment history, inside the event's
// transaction. Returns false for events Plinth does not act on (recorded as ignored).
import type Stripe from 'stripe';
import type { Queryable } from '../../core/db.js';
import * as billing from './billing.repo.js';
import { recordHistory } from './history-events.js';
import { applyCheckoutState } from './sessions.repo.js';
import { idOf, toDate, type Environment } from './processor.js';

const checkoutStatus: Record<string, string> = {
  'checkout.session.completed': 'completed',
  'checkout.session.async_payment_succeeded': 'completed',
  'checkout.session.async_payment_failed': 'completed',
  'checkout.session.expired': 'expired',
};

export async function applyEvent(db: Queryable, env: Environment, event: Stripe.Event, now: Date): Promise<boolean> {
  const object = event.data.object as unknown as Record<string, unknown>;
  const eventAt = toDate(event.created)!;
  switch (event.type) {
    case 'customer.created':
    case 'customer.updated':
    case 'customer.deleted':
      await billing.upsertCustomer(db, env, object as unknown as Stripe.Customer, now);
      return true;
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
    case 'customer.subscription.paused':
    case 'customer.subscription.resumed': {
      const subscription = object as unknown as Stripe.Subscription;
      const subject = billing.subjectOf(subscription.metadata);
      if (subject) await billing.upsertMapping(db, env, subject, idOf(subscription.customer)!, now);
      // An older state arriving late is acknowledged but changes nothing.
      await billing.upsertSubscription(db, env, subscription, eventAt, now);
      return true;
    }
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
    case 'checkout.session.async_payment_failed':
    case 'checkout.session.expired': {
      const session = object as unknown as Stripe.Checkout.Session;
      const customerId = idOf(session.customer);
      const subject = billing.subjectOf(session.metadata as Record<string, string> | null);
      if (subject && customerId) await billing.upsertMapping(db, env, subject, customerId, now);
      await applyCheckoutState(
        db,
        env,
        {
          id: session.id,
          localId: session.client_reference_id ?? null,
          status: checkoutStatus[event.type]!,
          paymentStatus:
            event.type === 'checkout.session.async_payment_failed' ? 'unpaid' : (session.payment_status ?? null),
          customerId,
          paymentIntentId: idOf(session.payment_intent as string | { id: string } | null),
          subscriptionId: idOf(session.subscription as string | { id: string } | null),
        },
        now,
      );
      await recordHistory(db, env, event.type, object, eventAt, now);
      return true;
    }
    case 'invoice.paid':
    case 'invoice.payment_failed': {
      const invoice = object as {
        id: string;
        parent?: { subscription_details?: { subscription?: string | { id: string } } };
        subscription?: string | { id: string };
      };
      const subscriptionId = idOf(invoice.parent?.subscription_details?.subscription ?? invoice.subscription);
      if (subscriptionId) {
        await billing.setLatestInvoice(db, env, subscriptionId, invoice.id, now);
      }
      await recordHistory(db, env, event.type, object, eventAt, now);
      return true;
    }
    default:
      // Payment intents, charges and refunds only feed the payment history.
      return recordHistory(db, env, event.type, object, eventAt, now);
  }
}
