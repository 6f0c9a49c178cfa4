// Reads invoices, payment intents, charges, refunds and checkout sessions from processor events
// (or a sync's lists) into payment-history facts, old and new processor API shapes alike, and
// records them.
import type { Queryable } from '../../core/db.js';
import { subjectOf } from './billing.repo.js';
import { type Card, type PaymentFacts, recordPayment } from './history-payments.repo.js';
import { type RefundFacts, recordRefund } from './history-refunds.repo.js';
import { idOf, toDate, type Environment } from './processor.js';

// biome-ignore lint/suspicious/noExplicitAny: processor objects are untyped JSON read field by field
type Obj = Record<string, any>;
type Ref = string | { id: string } | null | undefined;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
const ref = (v: unknown): string | null => idOf(v as Ref);

/** Card details of an expanded charge or payment method (ids alone carry none). */
function cardOf(...sources: unknown[]): Card | null {
  for (const s of sources) {
    if (typeof s !== 'object' || s === null) continue;
    const o = s as Obj;
    const card = o.payment_method_details?.card ?? o.card;
    if (card)
      return {
        brand: str(card.brand),
        last4: str(card.last4),
        country: str(card.country) ?? str(o.billing_details?.address?.country),
      };
  }
  return null;
}

const base = {
  invoiceId: null,
  paymentIntentId: null,
  chargeId: null,
  amount: null,
  amountRefunded: null,
  currency: null,
  customerId: null,
  email: null,
  subject: null,
  checkoutSessionId: null,
  subscriptionId: null,
  productId: null,
  priceId: null,
  description: null,
  failureMessage: null,
  card: null,
} satisfies Partial<PaymentFacts>;

function invoiceFacts(inv: Obj, outcome: 'succeeded' | 'failed'): PaymentFacts {
  const details = inv.parent?.subscription_details ?? inv.subscription_details;
  const subscriptionId = ref(details?.subscription ?? inv.subscription);
  const line = inv.lines?.data?.[0] as Obj | undefined;
  const payment = (inv.payments?.data as Obj[] | undefined)?.find((p) => p.payment?.payment_intent)?.payment;
  const intent = inv.payment_intent ?? payment?.payment_intent;
  return {
    ...base,
    kind: subscriptionId ? 'subscription_invoice' : 'one_time_payment',
    outcome,
    invoiceId: inv.id,
    paymentIntentId: ref(intent),
    chargeId: ref(inv.charge),
    amount:
      outcome === 'succeeded' ? (num(inv.amount_paid) ?? num(inv.total)) : (num(inv.amount_due) ?? num(inv.total)),
    currency: str(inv.currency),
    customerId: ref(inv.customer),
    email: str(inv.customer_email),
    subject: subjectOf(details?.metadata) ?? subjectOf(inv.metadata),
    subscriptionId,
    productId: ref(line?.pricing?.price_details?.product ?? line?.price?.product),
    priceId: ref(line?.pricing?.price_details?.price ?? line?.price),
    description: str(inv.description) ?? str(line?.description),
    failureMessage:
      outcome === 'failed' ? (str(inv.last_finalization_error?.message) ?? 'The invoice payment failed.') : null,
    card: cardOf(intent, inv.charge),
    createdAt: toDate(num(inv.created)),
    raw: inv,
  };
}

function intentFacts(pi: Obj, outcome: PaymentFacts['outcome']): PaymentFacts {
  const invoiceId = ref(pi.invoice);
  const error = pi.last_payment_error as Obj | null | undefined;
  return {
    ...base,
    kind: invoiceId ? 'subscription_invoice' : 'one_time_payment',
    outcome,
    invoiceId,
    paymentIntentId: pi.id,
    chargeId: ref(pi.latest_charge),
    amount: outcome === 'succeeded' ? (num(pi.amount_received) ?? num(pi.amount)) : num(pi.amount),
    currency: str(pi.currency),
    customerId: ref(pi.customer),
    email: str(pi.receipt_email),
    subject: subjectOf(pi.metadata),
    description: str(pi.description),
    failureMessage: outcome === 'failed' ? (str(error?.message) ?? 'The payment failed.') : null,
    card: cardOf(pi.latest_charge, pi.payment_method, error?.payment_method),
    createdAt: toDate(num(pi.created)),
    raw: pi,
  };
}

function chargeFacts(ch: Obj): PaymentFacts {
  return {
    ...base,
    kind: ref(ch.invoice) ? 'subscription_invoice' : 'one_time_payment',
    outcome: ch.paid === false ? 'failed' : 'succeeded',
    invoiceId: ref(ch.invoice),
    paymentIntentId: ref(ch.payment_intent),
    chargeId: ch.id,
    amount: num(ch.amount_captured) || num(ch.amount),
    amountRefunded: num(ch.amount_refunded),
    currency: str(ch.currency),
    customerId: ref(ch.customer),
    email: str(ch.billing_details?.email) ?? str(ch.receipt_email),
    subject: subjectOf(ch.metadata),
    description: str(ch.description),
    card: cardOf(ch),
    createdAt: toDate(num(ch.created)),
    raw: ch,
  };
}

const refundStatus = (s: unknown): RefundFacts['status'] =>
  s === 'succeeded' ? 'succeeded' : s === 'failed' || s === 'canceled' ? 'failed' : 'pending';

function refundFacts(r: Obj, chargeId: string | null = null): RefundFacts {
  return {
    refundId: r.id,
    status: refundStatus(r.status),
    amount: num(r.amount),
    currency: str(r.currency),
    paymentIntentId: ref(r.payment_intent),
    chargeId: ref(r.charge) ?? chargeId,
    description: str(r.reason),
    failureMessage: str(r.failure_reason),
    createdAt: toDate(num(r.created)),
    raw: r,
  };
}

const checkoutOutcome: Record<string, PaymentFacts['outcome']> = {
  'checkout.session.async_payment_succeeded': 'succeeded',
  'checkout.session.async_payment_failed': 'failed',
};

/** A payment-mode checkout's payment (subscription checkouts are paid by their invoices). */
function checkoutFacts(type: string, s: Obj): PaymentFacts | null {
  if (s.mode !== 'payment' || !ref(s.payment_intent)) return null;
  const outcome =
    checkoutOutcome[type] ??
    (s.payment_status === 'paid' ? 'succeeded' : s.payment_status === 'unpaid' ? 'pending' : null);
  if (!outcome) return null;
  return {
    ...base,
    kind: 'one_time_payment',
    outcome,
    paymentIntentId: ref(s.payment_intent),
    amount: num(s.amount_total),
    currency: str(s.currency),
    customerId: ref(s.customer),
    email: str(s.customer_details?.email) ?? str(s.customer_email),
    subject: subjectOf(s.metadata),
    checkoutSessionId: s.id,
    failureMessage: outcome === 'failed' ? 'The delayed payment of the checkout failed.' : null,
    createdAt: toDate(num(s.created)),
    raw: s,
  };
}

/** Records the payment history an event carries; false when it carries none Plinth keeps. */
export async function recordHistory(
  db: Queryable,
  env: Environment,
  type: string,
  object: Obj,
  at: Date,
  now: Date,
): Promise<boolean> {
  switch (type) {
    case 'invoice.paid':
    case 'invoice.payment_failed':
      await recordPayment(db, env, invoiceFacts(object, type === 'invoice.paid' ? 'succeeded' : 'failed'), at, now);
      return true;
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed':
      await recordPayment(
        db,
        env,
        intentFacts(object, type === 'payment_intent.succeeded' ? 'succeeded' : 'failed'),
        at,
        now,
      );
      return true;
    case 'charge.refunded':
      await recordPayment(db, env, chargeFacts(object), at, now);
      for (const refund of (object.refunds?.data as Obj[] | undefined) ?? []) {
        await recordRefund(db, env, refundFacts(refund, object.id), at, now);
      }
      return true;
    case 'refund.created':
    case 'refund.updated':
    case 'refund.failed':
      await recordRefund(db, env, refundFacts(object), at, now);
      return true;
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
    case 'checkout.session.async_payment_failed': {
      const facts = checkoutFacts(type, object);
      if (facts) await recordPayment(db, env, facts, at, now);
      return true;
    }
    default:
      return false;
  }
}

export interface HistorySnapshot {
  invoices: Obj[];
  paymentIntents: Obj[];
  refunds: Obj[];
}

/** Records what a sync read: settled invoices and payment intents, and every refund, as of `now`. */
export async function recordSnapshot(
  db: Queryable,
  env: Environment,
  snap: HistorySnapshot,
  now: Date,
): Promise<number> {
  let recorded = 0;
  for (const inv of snap.invoices) {
    const outcome = inv.status === 'paid' ? 'succeeded' : inv.status === 'open' && inv.attempted ? 'failed' : null;
    if (!outcome) continue;
    await recordPayment(db, env, invoiceFacts(inv, outcome), now, now);
    recorded++;
  }
  for (const pi of snap.paymentIntents) {
    const outcome =
      pi.status === 'succeeded'
        ? 'succeeded'
        : pi.last_payment_error
          ? 'failed'
          : pi.status === 'processing'
            ? 'pending'
            : null;
    if (!outcome) continue;
    await recordPayment(db, env, intentFacts(pi, outcome), now, now);
    recorded++;
  }
  for (const r of snap.refunds) {
    await recordRefund(db, env, refundFacts(r), now, now);
    recorded++;
  }
  return recorded;
}
