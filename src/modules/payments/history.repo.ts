// SQL for payment history: one row per invoice / payment intent / refund, merged so that replayed
// or out-of-order events never double count or regress (a payment once paid stays paid, refunded
// amounts only grow, a refund's older state never overwrites a newer one).
import type { Queryable } from '../../core/db.js';
import type { Subject } from './billing.repo.js';
import type { PaymentHistoryOut } from './payments.schemas.js';
import type { Environment } from './processor.js';
import { jsonText } from '../../core/json-guard.js';

export type PaymentKind = 'one_time_payment' | 'subscription_invoice';
export type HistoryType = PaymentKind | 'refund' | 'failed_payment';
export type HistoryStatus = 'succeeded' | 'failed' | 'pending' | 'refunded' | 'partially_refunded';

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

export interface RefundFacts {
  refundId: string;
  status: 'succeeded' | 'failed' | 'pending';
  amount: number | null;
  currency: string | null;
  paymentIntentId: string | null;
  chargeId: string | null;
  description: string | null;
  failureMessage: string | null;
  createdAt: Date | null;
  raw: unknown;
}

interface Row {
  processorObjectId: string;
  type: HistoryType;
  status: HistoryStatus;
  subjectType: string | null;
  subjectId: string | null;
  processorCustomerId: string | null;
  customerEmailSnapshot: string | null;
  processorCheckoutSessionId: string | null;
  processorPaymentIntentId: string | null;
  processorInvoiceId: string | null;
  processorChargeId: string | null;
  processorRefundId: string | null;
  processorSubscriptionId: string | null;
  processorProductId: string | null;
  processorPriceId: string | null;
  amount: number | null;
  amountRefunded: number;
  currency: string | null;
  description: string | null;
  failureMessage: string | null;
  paymentMethodBrand: string | null;
  paymentMethodLast4: string | null;
  countryCode: string | null;
  paidAt: Date | null;
  failedAt: Date | null;
  refundedAt: Date | null;
  processorCreatedAt: Date | null;
  stateAt: Date;
  raw: unknown;
}

const columns = (db: Queryable) => db`
  id, environment, type, status, processor_object_id as "processorObjectId", subject_type as "subjectType",
  subject_id as "subjectId", processor_customer_id as "processorCustomerId", customer_email_snapshot as "customerEmailSnapshot",
  processor_checkout_session_id as "processorCheckoutSessionId", processor_payment_intent_id as "processorPaymentIntentId",
  processor_invoice_id as "processorInvoiceId", processor_charge_id as "processorChargeId", processor_refund_id as "processorRefundId",
  processor_subscription_id as "processorSubscriptionId", processor_product_id as "processorProductId",
  processor_price_id as "processorPriceId", amount::float8 as amount, amount_refunded::float8 as "amountRefunded", currency,
  description, failure_message as "failureMessage", payment_method_brand as "paymentMethodBrand",
  payment_method_last4 as "paymentMethodLast4", country_code as "countryCode", paid_at as "paidAt", failed_at as "failedAt",
  refunded_at as "refundedAt", processor_created_at as "processorCreatedAt", state_at as "stateAt", raw,
  created_at as "createdAt", updated_at as "updatedAt"`;

const PAID: HistoryStatus[] = ['succeeded', 'refunded', 'partially_refunded'];

/** History writes of an environment are serialised, so merges never race each other. */
async function lockHistory(db: Queryable, env: Environment): Promise<void> {
  await db`select pg_advisory_xact_lock(hashtext(${`payments.payment_history:${env}`}))`;
}

async function find(db: Queryable, env: Environment, key: string): Promise<Row | undefined> {
  const [row] = await db<Row[]>`
    select ${columns(db)} from payments.payment_history where environment = ${env} and processor_object_id = ${key}`;
  return row;
}

/** The invoice row that already claimed a payment intent (its payment), if any. */
async function invoiceOfIntent(db: Queryable, env: Environment, paymentIntentId: string): Promise<string | undefined> {
  const [row] = await db<{ key: string }[]>`
    select processor_object_id as key from payments.payment_history
    where environment = ${env} and processor_payment_intent_id = ${paymentIntentId} and processor_invoice_id is not null
      and type <> 'refund' limit 1`;
  return row?.key;
}

async function succeededRefunds(
  db: Queryable,
  env: Environment,
  paymentIntentId: string | null,
  chargeId: string | null,
): Promise<number> {
  if (!paymentIntentId && !chargeId) return 0;
  const [row] = await db<{ total: number }[]>`
    select coalesce(sum(amount), 0)::float8 as total from payments.payment_history
    where environment = ${env} and type = 'refund' and status = 'succeeded'
      and (processor_payment_intent_id = ${paymentIntentId ?? ''} or processor_charge_id = ${chargeId ?? ''})`;
  return row!.total;
}

async function write(db: Queryable, env: Environment, r: Row, now: Date): Promise<void> {
  await db`
    insert into payments.payment_history (environment, processor_object_id, type, status, subject_type, subject_id,
      processor_customer_id, customer_email_snapshot, processor_checkout_session_id, processor_payment_intent_id,
      processor_invoice_id, processor_charge_id, processor_refund_id, processor_subscription_id, processor_product_id,
      processor_price_id, amount, amount_refunded, currency, description, failure_message, payment_method_brand,
      payment_method_last4, country_code, paid_at, failed_at, refunded_at, processor_created_at, state_at, raw,
      created_at, updated_at)
    values (${env}, ${r.processorObjectId}, ${r.type}, ${r.status}, ${r.subjectType}, ${r.subjectId}, ${r.processorCustomerId},
      ${r.customerEmailSnapshot}, ${r.processorCheckoutSessionId}, ${r.processorPaymentIntentId}, ${r.processorInvoiceId},
      ${r.processorChargeId}, ${r.processorRefundId}, ${r.processorSubscriptionId}, ${r.processorProductId}, ${r.processorPriceId},
      ${r.amount}, ${r.amountRefunded}, ${r.currency}, ${r.description}, ${r.failureMessage}, ${r.paymentMethodBrand},
      ${r.paymentMethodLast4}, ${r.countryCode}, ${r.paidAt}, ${r.failedAt}, ${r.refundedAt}, ${r.processorCreatedAt},
      ${r.stateAt}, ${jsonText(r.raw)}::text::jsonb, ${now}, ${now})
    on conflict (environment, processor_object_id) do update set type = excluded.type, status = excluded.status,
      subject_type = excluded.subject_type, subject_id = excluded.subject_id, processor_customer_id = excluded.processor_customer_id,
      customer_email_snapshot = excluded.customer_email_snapshot, processor_checkout_session_id = excluded.processor_checkout_session_id,
      processor_payment_intent_id = excluded.processor_payment_intent_id, processor_invoice_id = excluded.processor_invoice_id,
      processor_charge_id = excluded.processor_charge_id, processor_refund_id = excluded.processor_refund_id,
      processor_subscription_id = excluded.processor_subscription_id, processor_product_id = excluded.processor_product_id,
      processor_price_id = excluded.processor_price_id, amount = excluded.amount, amount_refunded = excluded.amount_refunded,
      currency = excluded.currency, description = excluded.description, failure_message = excluded.failure_message,
      payment_method_brand = excluded.payment_method_brand, payment_method_last4 = excluded.payment_method_last4,
      country_code = excluded.country_code, paid_at = excluded.paid_at, failed_at = excluded.failed_at,
      refunded_at = excluded.refunded_at, processor_created_at = excluded.processor_created_at, state_at = excluded.state_at,
      raw = excluded.raw, updated_at = excluded.updated_at`;
}

/** A paid payment's status from how much of it was refunded. */
function paidStatus(amount: number | null, refunded: number): HistoryStatus {
  if (refunded <= 0) return 'succeeded';
  return amount !== null && refunded >= amount ? 'refunded' : 'partially_refunded';
}

/** Raises a payment's refunded amount to what its succeeded refunds (or its charge) add up to. */
async function settleRefunds(db: Queryable, env: Environment, row: Row, reported: number, at: Date): Promise<Row> {
  const refunded = Math.max(
    row.amountRefunded,
    reported,
    await succeededRefunds(db, env, row.processorPaymentIntentId, row.processorChargeId),
  );
  if (refunded === row.amountRefunded) return row;
  const paid = PAID.includes(row.status);
  return {
    ...row,
    amountRefunded: refunded,
    refundedAt: at,
    status: paid ? paidStatus(row.amount, refunded) : row.status,
  };
}

const emptyRow = (key: string, stateAt: Date): Row => ({
  processorObjectId: key,
  type: 'failed_payment',
  status: 'pending',
  subjectType: null,
  subjectId: null,
  processorCustomerId: null,
  customerEmailSnapshot: null,
  processorCheckoutSessionId: null,
  processorPaymentIntentId: null,
  processorInvoiceId: null,
  processorChargeId: null,
  processorRefundId: null,
  processorSubscriptionId: null,
  processorProductId: null,
  processorPriceId: null,
  amount: null,
  amountRefunded: 0,
  currency: null,
  description: null,
  failureMessage: null,
  paymentMethodBrand: null,
  paymentMethodLast4: null,
  countryCode: null,
  paidAt: null,
  failedAt: null,
  refundedAt: null,
  processorCreatedAt: null,
  stateAt,
  raw: {},
});

/** Merges what an event says about a payment into its row, as of the event's time `at`. */
function mergePayment(old: Row, f: PaymentFacts, at: Date): Row {
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
  let row = (await find(db, env, key)) ?? emptyRow(key, at);
  let reported = f.amountRefunded ?? 0;
  if (key !== f.paymentIntentId && f.paymentIntentId) {
    const early = await find(db, env, f.paymentIntentId);
    if (early && early.type !== 'refund') {
      await db`delete from payments.payment_history where environment = ${env} and processor_object_id = ${early.processorObjectId}`;
      row = mergePayment(row, factsOf(early), early.stateAt);
      reported = Math.max(reported, early.amountRefunded);
    }
  }
  if (!row.subjectType && !f.subject) f = { ...f, subject: await subjectFor(db, env, f) };
  row = mergePayment(row, f, at);
  await write(db, env, await settleRefunds(db, env, row, reported, at), now);
  await adoptRefunds(db, env, row, now);
}

/** Refunds recorded before their payment take its subject and customer once it is known. */
async function adoptRefunds(db: Queryable, env: Environment, payment: Row, now: Date): Promise<void> {
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
function factsOf(r: Row): PaymentFacts {
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

const refundRank = { pending: 0, failed: 1, succeeded: 1 } as const;

/** Records a refund's state (an older one never overwrites a newer), then its payment's refunded amount. */
export async function recordRefund(
  db: Queryable,
  env: Environment,
  f: RefundFacts,
  at: Date,
  now: Date,
): Promise<void> {
  await lockHistory(db, env);
  const old = await find(db, env, f.refundId);
  const stale =
    old !== undefined &&
    (old.stateAt > at ||
      (old.stateAt.getTime() === at.getTime() &&
        refundRank[old.status as keyof typeof refundRank] > refundRank[f.status]));
  const [payment] = await db<Row[]>`
    select ${columns(db)} from payments.payment_history
    where environment = ${env} and type <> 'refund'
      and (processor_payment_intent_id = ${f.paymentIntentId ?? ''} or processor_charge_id = ${f.chargeId ?? ''})
    limit 1`;
  if (!stale) {
    const base = old ?? emptyRow(f.refundId, at);
    await write(
      db,
      env,
      {
        ...base,
        type: 'refund',
        status: f.status,
        subjectType: payment?.subjectType ?? base.subjectType,
        subjectId: payment?.subjectId ?? base.subjectId,
        processorCustomerId: payment?.processorCustomerId ?? base.processorCustomerId,
        customerEmailSnapshot: payment?.customerEmailSnapshot ?? base.customerEmailSnapshot,
        processorInvoiceId: payment?.processorInvoiceId ?? base.processorInvoiceId,
        processorSubscriptionId: payment?.processorSubscriptionId ?? base.processorSubscriptionId,
        processorPaymentIntentId: f.paymentIntentId ?? base.processorPaymentIntentId,
        processorChargeId: f.chargeId ?? base.processorChargeId,
        processorRefundId: f.refundId,
        amount: f.amount ?? base.amount,
        currency: f.currency ?? base.currency,
        description: f.description ?? base.description,
        failureMessage: f.failureMessage,
        refundedAt: f.status === 'succeeded' ? (base.refundedAt ?? at) : null,
        failedAt: f.status === 'failed' ? (base.failedAt ?? at) : null,
        processorCreatedAt: base.processorCreatedAt ?? f.createdAt,
        stateAt: at,
        raw: f.raw,
      },
      now,
    );
  }
  if (payment) {
    const settled = await settleRefunds(db, env, payment, 0, at);
    if (settled !== payment) await write(db, env, settled, now);
  }
}

export async function listHistory(db: Queryable, env: Environment, subject: Subject | null, limit: number) {
  return db<PaymentHistoryOut[]>`
    select ${columns(db)} from payments.payment_history
    where environment = ${env}
      ${subject ? db`and subject_type = ${subject.type} and subject_id = ${subject.id}` : db``}
    order by coalesce(processor_created_at, created_at) desc, created_at desc, processor_object_id desc
    limit ${limit}`;
}
