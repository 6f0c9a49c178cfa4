// What each Razorpay event does to the mirror, inside the event's transaction: payments and
// refunds and invoices become transactions (and pay the local order), subscription events
// refresh the subscription's mirror row. The subject comes from svc_subject_* notes, else from
// the order, subscription or customer it belongs to.
import type { Queryable } from '../../../core/db.js';
import { subjectOf, type Subject } from '../billing.repo.js';
import type { Environment } from '../processor.js';
import { fromSeconds, notesOf, type RzpObject } from './client.js';
import * as mirror from './mirror.repo.js';
import * as repo from './orders.repo.js';

export const HANDLED_EVENTS = new Set([
  'payment.authorized',
  'payment.captured',
  'payment.failed',
  'subscription.created',
  'subscription.authenticated',
  'subscription.activated',
  'subscription.charged',
  'subscription.updated',
  'subscription.pending',
  'subscription.cancelled',
  'subscription.paused',
  'subscription.resumed',
  'subscription.halted',
  'subscription.completed',
  'subscription.expired',
  'refund.created',
  'refund.processed',
  'refund.failed',
  'invoice.paid',
  'invoice.expired',
  'order.paid',
]);

export interface RazorpayEvent {
  account_id?: string;
  event: string;
  contains?: string[];
  payload: Record<string, { entity?: RzpObject } | undefined>;
  created_at?: number;
}

const entityOf = (event: RazorpayEvent, name: string): RzpObject | undefined => event.payload?.[name]?.entity;

async function subjectFor(db: Queryable, env: Environment, o: RzpObject): Promise<Subject | null> {
  return (
    subjectOf(notesOf(o.notes)) ??
    (typeof o.order_id === 'string' ? await mirror.subjectOfOrder(db, env, o.order_id) : null) ??
    (typeof o.subscription_id === 'string' ? await repo.subjectOfSubscription(db, env, o.subscription_id) : null) ??
    (typeof o.customer_id === 'string' ? await mirror.subjectOfCustomer(db, env, o.customer_id) : null)
  );
}

export async function paymentTransaction(
  db: Queryable,
  env: Environment,
  p: RzpObject,
): Promise<mirror.TransactionInsert> {
  return {
    objectId: p.id,
    type: 'payment',
    status: String(p.status ?? 'created'),
    orderId: p.order_id ?? null,
    paymentId: p.id,
    subscriptionId: p.subscription_id ?? null,
    invoiceId: p.invoice_id ?? null,
    customerId: p.customer_id ?? null,
    subject: await subjectFor(db, env, p),
    amount: p.amount ?? null,
    amountRefunded: Number(p.amount_refunded ?? 0),
    currency: p.currency ?? null,
    method: p.method ?? null,
    email: p.email ?? null,
    contact: p.contact ?? null,
    errorDescription: p.error_description ?? null,
    providerCreatedAt: fromSeconds(p.created_at),
    raw: p,
  };
}

/** Applies one signed event; false when it is not one Plinth acts on (or lacks its entity). */
export async function applyRazorpayEvent(
  db: Queryable,
  env: Environment,
  event: RazorpayEvent,
  now: Date,
): Promise<boolean> {
  if (!HANDLED_EVENTS.has(event.event)) return false;
  const [kind] = event.event.split('.');
  const payment = entityOf(event, 'payment');

  if (kind === 'payment' || kind === 'order') {
    if (!payment) return false;
    await mirror.upsertTransaction(db, env, await paymentTransaction(db, env, payment), now);
    await repo.applyPaymentToOrder(db, env, payment, now);
    return true;
  }
  if (kind === 'subscription') {
    const s = entityOf(event, 'subscription');
    if (!s) return false;
    const subject = (await subjectFor(db, env, s)) ?? null;
    await repo.upsertSubscription(db, env, s, subject, now);
    if (subject && typeof s.customer_id === 'string') {
      await mirror.upsertCustomer(db, env, { id: s.customer_id }, subject, now);
    }
    if (payment) await mirror.upsertTransaction(db, env, await paymentTransaction(db, env, payment), now);
    return true;
  }
  if (kind === 'refund') {
    const r = entityOf(event, 'refund');
    if (!r) return false;
    const paid = payment ?? { id: r.payment_id };
    await mirror.upsertTransaction(
      db,
      env,
      {
        objectId: r.id,
        type: 'refund',
        status: String(r.status ?? event.event.split('.')[1]),
        orderId: paid.order_id ?? null,
        paymentId: r.payment_id ?? null,
        subscriptionId: paid.subscription_id ?? null,
        invoiceId: paid.invoice_id ?? null,
        customerId: paid.customer_id ?? null,
        subject: await subjectFor(db, env, { ...paid, notes: r.notes }),
        amount: r.amount ?? null,
        amountRefunded: 0,
        currency: r.currency ?? null,
        method: null,
        email: null,
        contact: null,
        errorDescription: null,
        providerCreatedAt: fromSeconds(r.created_at),
        raw: r,
      },
      now,
    );
    if (payment) await mirror.upsertTransaction(db, env, await paymentTransaction(db, env, payment), now);
    return true;
  }
  if (kind === 'invoice') {
    const inv = entityOf(event, 'invoice');
    if (!inv) return false;
    await mirror.upsertTransaction(
      db,
      env,
      {
        objectId: inv.id,
        type: 'invoice',
        status: String(inv.status ?? event.event.split('.')[1]),
        orderId: inv.order_id ?? null,
        paymentId: inv.payment_id ?? null,
        subscriptionId: inv.subscription_id ?? null,
        invoiceId: inv.id,
        customerId: inv.customer_id ?? null,
        subject: await subjectFor(db, env, inv),
        amount: inv.amount ?? null,
        amountRefunded: 0,
        currency: inv.currency ?? null,
        method: null,
        email: inv.customer_details?.email ?? null,
        contact: inv.customer_details?.contact ?? null,
        errorDescription: null,
        providerCreatedAt: fromSeconds(inv.created_at),
        raw: inv,
      },
      now,
    );
    if (payment) await mirror.upsertTransaction(db, env, await paymentTransaction(db, env, payment), now);
    return true;
  }
  return false;
}
