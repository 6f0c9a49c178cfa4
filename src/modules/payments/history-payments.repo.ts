// Payments in the history: what an invoice, payment intent, charge or checkout event says, merged
// so that replayed or out-of-order events never double count or regress (a payment once paid stays
// paid, refunded amounts only grow). An invoice's payment intent is folded into the invoice's row.
import type { Queryable } from '../../core/db.js';
import type { Subject } from './billing.repo.js';
import {
  deleteHistoryRow,
  emptyRow,
  findHistoryRow,
  type HistoryRow,
  lockHistory,
  PAID,
  type PaymentKind,
  paidStatus,
  settleRefunds,
  writeHistoryRow,
} from './history.repo.js';
import type { Environment } from './processor.js';

export interface Card {
  brand: string | null;
  last4: string | null;
  country: string | null;
}

/** What one event says about a payment (an invoice or a payment intent). */
export interface PaymentFacts {
  kind: PaymentKind;
  outcome: 'succeeded' | 'failed' | 'pending';
  invoiceId: string | null;
  paymentIntentId: string | null;
  chargeId: string | null;
  amount: number | null;
  /** Cumulative refunded amount as the processor reported it (charges), if known. */
  amountRefunded: number | null;
  currency: string | null;
  customerId: string | null;
  email: string | null;
  subject: Subject | null;
  checkoutSessionId: string | null;
  subscriptionId: string | null;
  productId: string | null;
  priceId: string | null;
  description: string | null;
  failureMessage: string | null;
  card: Card | null;
  createdAt: Date | null;
  raw: unknown;
}

/** The invoice row that already claimed a payment intent (its payment), if any. */
async function invoiceOfIntent(db: Queryable, env: Environment, paymentIntentId: string): Promise<string | undefined> {
  const [row] = await db<{ key: string }[]>`
    select processor_object_id as key from payments.payment_history
    where environment = ${env} and processor_payment_intent_id = ${paymentIntentId} and processor_invoice_id is not null
      and type <> 'refund' limit 1`;
  return row?.key;
}

/** Merges what an event says about a payment into its row, as of the event's time `at`. */
function mergePayment(old: HistoryRow, f: PaymentFacts, at: Date): HistoryRow {
  const wasPaid = PAID.includes(old.status);
  const paid = wasPaid || f.outcome === 'succeeded';
  const kind: PaymentKind =
    old.type === 'subscription_invoice' || f.kind === 'subscription_invoice'
      ? 'subscription_invoice'
      : 'one_time_payment';
  const failed = !paid && (f.outcome === 'failed' || old.status === 'failed');
  // A late failure or pending notice about a paid payment adds ids but changes nothing else.
  const authoritative = f.outcome === 'succeeded' || !wasPaid;
  const pick = <T>(fresh: T | null, kept: T | null): T | null => (authoritative ? (fresh ?? kept) : (kept ?? fresh));
  return {
    ...old,
    type: paid ? kind : failed ? 'failed_payment' : kind,
    status: paid ? paidStatus(pick(f.amount, old.amount), old.amountRefunded) : failed ? 'failed' : 'pending',
    subjectType: f.subject?.type ?? old.subjectType,
    subjectId: f.subject?.id ?? old.subjectId,
    processorCustomerId: f.customerId ?? old.processorCustomerId,
    customerEmailSnapshot: f.email ?? old.customerEmailSnapshot,
    processorCheckoutSessionId: f.checkoutSessionId ?? old.processorCheckoutSessionId,
    processorPaymentIntentId: f.paymentIntentId ?? old.processorPaymentIntentId,
    processorInvoiceId: f.invoiceId ?? old.processorInvoiceId,
    processorChargeId: f.chargeId ?? old.processorChargeId,
    processorSubscriptionId: f.subscriptionId ?? old.processorSubscriptionId,
    processorProductId: f.productId ?? old.processorProductId,
    processorPriceId: f.priceId ?? old.processorPriceId,
    amount: pick(f.amount, old.amount),
    currency: f.currency ?? old.currency,
    description: pick(f.description, old.description),
    failureMessage: paid ? null : (f.failureMessage ?? old.failureMessage),
    paymentMethodBrand: f.card?.brand ?? old.paymentMethodBrand,
    paymentMethodLast4: f.card?.last4 ?? old.paymentMethodLast4,
    countryCode: f.card?.country ?? old.countryCode,
    paidAt: old.paidAt ?? (f.outcome === 'succeeded' ? at : null),
    failedAt: old.failedAt ?? (f.outcome === 'failed' ? at : null),
    processorCreatedAt: old.processorCreatedAt ?? f.createdAt,
    stateAt: old.stateAt > at ? old.stateAt : at,
    raw: authoritative ? f.raw : old.raw,
  };
}

/**
 * Records what an event says about a payment. An invoice's payment intent is the invoice's own
 * payment: a row the intent made first is folded into the invoice row, never counted twice.
 */
export async function recordPayment(
  db: Queryable,
  env: Environment,
  f: PaymentFacts,
  at: Date,
  now: Date,
): Promise<void> {
  await lockHistory(db, env);
  const key =
    f.invoiceId ??
    (f.paymentIntentId ? await invoiceOfIntent(db, env, f.paymentIntentId) : undefined) ??
    f.paymentIntentId ??
    f.chargeId;
  if (!key) return;
  let row = (await findHistoryRow(db, env, key)) ?? emptyRow(key, at);
  let reported = f.amountRefunded ?? 0;
  if (key !== f.paymentIntentId && f.paymentIntentId) {
    const early = await findHistoryRow(db, env, f.paymentIntentId);
    if (early && early.type !== 'refund') {
      await deleteHistoryRow(db, env, early.processorObjectId);
      row = mergePayment(row, factsOf(early), early.stateAt);
      reported = Math.max(reported, early.amountRefunded);
    }
  }
  if (!row.subjectType && !f.subject) f = { ...f, subject: await subjectFor(db, env, f) };
  row = mergePayment(row, f, at);
  await writeHistoryRow(db, env, await settleRefunds(db, env, row, reported, at), now);
  await adoptRefunds(db, env, row, now);
}

/** Refunds recorded before their payment take its subject and customer once it is known. */
async function adoptRefunds(db: Queryable, env: Environment, payment: HistoryRow, now: Date): Promise<void> {
  if (!payment.subjectType && !payment.processorCustomerId) return;
  await db`
    update payments.payment_history set subject_type = coalesce(subject_type, ${payment.subjectType}),
      subject_id = coalesce(subject_id, ${payment.subjectId}),
      processor_customer_id = coalesce(processor_customer_id, ${payment.processorCustomerId}),
      processor_invoice_id = coalesce(processor_invoice_id, ${payment.processorInvoiceId}), updated_at = ${now}
    where environment = ${env} and type = 'refund' and (subject_type is null or processor_customer_id is null)
      and (processor_payment_intent_id = ${payment.processorPaymentIntentId ?? ''} or processor_charge_id = ${payment.processorChargeId ?? ''})`;
}

/** A row read back as the facts it holds (for folding an intent's row into its invoice's). */
function factsOf(r: HistoryRow): PaymentFacts {
  return {
    kind: r.type === 'subscription_invoice' ? 'subscription_invoice' : 'one_time_payment',
    outcome: PAID.includes(r.status) ? 'succeeded' : r.status === 'failed' ? 'failed' : 'pending',
    invoiceId: r.processorInvoiceId,
    paymentIntentId: r.processorPaymentIntentId,
    chargeId: r.processorChargeId,
    amount: r.amount,
    amountRefunded: r.amountRefunded,
    currency: r.currency,
    customerId: r.processorCustomerId,
    email: r.customerEmailSnapshot,
    subject: r.subjectType && r.subjectId ? { type: r.subjectType, id: r.subjectId } : null,
    checkoutSessionId: r.processorCheckoutSessionId,
    subscriptionId: r.processorSubscriptionId,
    productId: r.processorProductId,
    priceId: r.processorPriceId,
    description: r.description,
    failureMessage: r.failureMessage,
    card: { brand: r.paymentMethodBrand, last4: r.paymentMethodLast4, country: r.countryCode },
    createdAt: r.processorCreatedAt,
    raw: r.raw,
  };
}

/** The billing subject of a payment without subject metadata: its checkout session's, else its customer's. */
async function subjectFor(db: Queryable, env: Environment, f: PaymentFacts): Promise<Subject | null> {
  const [row] = await db<Subject[]>`
    select subject_type as type, subject_id as id from payments.checkout_sessions
    where environment = ${env} and subject_type is not null
      and (processor_checkout_session_id = ${f.checkoutSessionId ?? ''} or processor_payment_intent_id = ${f.paymentIntentId ?? ''})
    union all
    select subject_type, subject_id from payments.customer_mappings
    where environment = ${env} and processor_customer_id = ${f.customerId ?? ''}
    limit 1`;
  return row ?? null;
}
