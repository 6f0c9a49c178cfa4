// The payment_history table: one row per invoice / payment intent / refund, its SQL (read, write,
// list) and the rules both event paths share (paid statuses, refunded amounts). How events merge
// into rows is in history-payments.repo.ts and history-refunds.repo.ts.
import type { Queryable } from '../../core/db.js';
import { jsonText } from '../../core/json-guard.js';
import type { Subject } from './billing.repo.js';
import type { PaymentHistoryOut } from './payments.schemas.js';
import type { Environment } from './processor.js';

export type PaymentKind = 'one_time_payment' | 'subscription_invoice';
export type HistoryType = PaymentKind | 'refund' | 'failed_payment';
export type HistoryStatus = 'succeeded' | 'failed' | 'pending' | 'refunded' | 'partially_refunded';

/** One row of payments.payment_history, as read and written here. */
export interface HistoryRow {
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

/** The statuses of a payment that went through, refunded or not. */
export const PAID: HistoryStatus[] = ['succeeded', 'refunded', 'partially_refunded'];

/** History writes of an environment are serialised, so merges never race each other. */
export async function lockHistory(db: Queryable, env: Environment): Promise<void> {
  await db`select pg_advisory_xact_lock(hashtext(${`payments.payment_history:${env}`}))`;
}

export async function findHistoryRow(db: Queryable, env: Environment, key: string): Promise<HistoryRow | undefined> {
  const [row] = await db<HistoryRow[]>`
    select ${columns(db)} from payments.payment_history where environment = ${env} and processor_object_id = ${key}`;
  return row;
}

/** The payment (not a refund) of a payment intent or charge, for a refund to settle against. */
export async function findPaymentOf(
  db: Queryable,
  env: Environment,
  paymentIntentId: string | null,
  chargeId: string | null,
): Promise<HistoryRow | undefined> {
  const [payment] = await db<HistoryRow[]>`
    select ${columns(db)} from payments.payment_history
    where environment = ${env} and type <> 'refund'
      and (processor_payment_intent_id = ${paymentIntentId ?? ''} or processor_charge_id = ${chargeId ?? ''})
    limit 1`;
  return payment;
}

export async function deleteHistoryRow(db: Queryable, env: Environment, key: string): Promise<void> {
  await db`delete from payments.payment_history where environment = ${env} and processor_object_id = ${key}`;
}

/** Inserts or replaces the row of `r.processorObjectId`. */
export async function writeHistoryRow(db: Queryable, env: Environment, r: HistoryRow, now: Date): Promise<void> {
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

export async function listHistory(db: Queryable, env: Environment, subject: Subject | null, limit: number) {
  return db<PaymentHistoryOut[]>`
    select ${columns(db)} from payments.payment_history
    where environment = ${env}
      ${subject ? db`and subject_type = ${subject.type} and subject_id = ${subject.id}` : db``}
    order by coalesce(processor_created_at, created_at) desc, created_at desc, processor_object_id desc
    limit ${limit}`;
}

/** What the succeeded refunds of a payment intent or charge add up to. */
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

/** A paid payment's status from how much of it was refunded. */
export function paidStatus(amount: number | null, refunded: number): HistoryStatus {
  if (refunded <= 0) return 'succeeded';
  return amount !== null && refunded >= amount ? 'refunded' : 'partially_refunded';
}

/** Raises a payment's refunded amount to what its succeeded refunds (or its charge) add up to. */
export async function settleRefunds(
  db: Queryable,
  env: Environment,
  row: HistoryRow,
  reported: number,
  at: Date,
): Promise<HistoryRow> {
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

/** A row with nothing known yet but its key, for the first event about it. */
export const emptyRow = (key: string, stateAt: Date): HistoryRow => ({
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
