// SQL for Razorpay orders and subscriptions. Inserts and the manage probe run in the caller's
// request scope (row-level security decides whose subject a caller may pay for or manage);
// everything after Razorpay answered runs as the server.
import type { Queryable } from '../../../core/db.js';
import { jsonText } from '../../../core/json-guard.js';
import type { Environment } from '../processor.js';
import { fromSeconds, notesOf, type RzpObject } from './client.js';
import type { OrderRow, SubscriptionRow } from './razorpay.schemas.js';

const orderColumns = (db: Queryable) => db`
  id, environment, status, subject_type as "subjectType", subject_id as "subjectId",
  customer_name as "customerName", customer_email as "customerEmail", customer_contact as "customerContact",
  order_id as "orderId", receipt, amount::float8 as amount, amount_paid::float8 as "amountPaid",
  amount_due::float8 as "amountDue", currency, attempts, verified_payment_id as "verifiedPaymentId",
  verified_at as "verifiedAt", notes, last_error as "lastError", created_at as "createdAt", updated_at as "updatedAt"`;

export interface OrderInsert {
  id: string;
  environment: Environment;
  subjectType: string | null;
  subjectId: string | null;
  customerName: string | null;
  customerEmail: string | null;
  customerContact: string | null;
  receipt: string;
  amount: number;
  currency: string;
  notes: Record<string, string>;
  createdBy: string;
}

/** Inserts without RETURNING: a guest may create an order it is not allowed to read back. */
export async function insertOrder(db: Queryable, o: OrderInsert, now: Date): Promise<void> {
  await db`
    insert into payments.razorpay_orders (id, environment, status, subject_type, subject_id, customer_name, customer_email,
      customer_contact, receipt, amount, amount_due, currency, notes, created_by, created_at, updated_at)
    values (${o.id}, ${o.environment}, 'initialized', ${o.subjectType}, ${o.subjectId}, ${o.customerName}, ${o.customerEmail},
      ${o.customerContact}, ${o.receipt}, ${o.amount}, ${o.amount}, ${o.currency.toLowerCase()},
      ${jsonText(o.notes)}::text::jsonb, ${o.createdBy}, ${now}, ${now})`;
}

/** Mirrors Razorpay's order object onto the local row (status, amounts, attempts, notes). */
export async function recordUpstreamOrder(db: Queryable, id: string, order: RzpObject, now: Date): Promise<OrderRow> {
  const status = ['created', 'attempted', 'paid'].includes(order.status) ? order.status : 'created';
  const [row] = await db<OrderRow[]>`
    update payments.razorpay_orders set status = ${status}, order_id = ${order.id},
      amount = ${order.amount}, amount_paid = ${order.amount_paid ?? 0}, amount_due = ${order.amount_due ?? order.amount},
      attempts = ${order.attempts ?? 0}, notes = ${jsonText(notesOf(order.notes))}::text::jsonb,
      raw = ${jsonText(order)}::text::jsonb, updated_at = ${now}
    where id = ${id}
    returning ${orderColumns(db)}`;
  return row!;
}

export async function failOrder(db: Queryable, id: string, error: string, now: Date): Promise<void> {
  await db`update payments.razorpay_orders set status = 'failed', last_error = ${error}, updated_at = ${now} where id = ${id}`;
}

/** A checked payment of an order: `attempted` unless Razorpay already said `paid`. */
export async function markOrderVerified(
  db: Queryable,
  env: Environment,
  orderId: string,
  paymentId: string,
  now: Date,
): Promise<OrderRow | undefined> {
  const [row] = await db<OrderRow[]>`
    update payments.razorpay_orders set status = case when status = 'paid' then 'paid' else 'attempted' end,
      verified_payment_id = ${paymentId}, verified_at = ${now}, updated_at = ${now}
    where environment = ${env} and order_id = ${orderId}
    returning ${orderColumns(db)}`;
  return row;
}

/** A payment event about an order: captured (or refunded) pays it, anything else attempts it. */
export async function applyPaymentToOrder(db: Queryable, env: Environment, payment: RzpObject, now: Date) {
  if (typeof payment.order_id !== 'string') return;
  const paid = payment.status === 'captured' || payment.status === 'refunded';
  const amount = Number(payment.amount ?? 0);
  await db`
    update payments.razorpay_orders set
      status = case when ${paid} then 'paid' when status = 'paid' then 'paid' else 'attempted' end,
      amount_paid = case when ${paid} then greatest(amount_paid, ${amount}) else amount_paid end,
      amount_due = case when ${paid} then greatest(amount - greatest(amount_paid, ${amount}), 0) else amount_due end,
      verified_payment_id = case when ${paid} then coalesce(verified_payment_id, ${payment.id}) else verified_payment_id end,
      updated_at = ${now}
    where environment = ${env} and order_id = ${payment.order_id}`;
}

const subscriptionColumns = (db: Queryable) => db`
  environment, subscription_id as "subscriptionId", plan_id as "planId", customer_id as "customerId",
  subject_type as "subjectType", subject_id as "subjectId", status, current_start as "currentStart",
  current_end as "currentEnd", ended_at as "endedAt", charge_at as "chargeAt", start_at as "startAt", end_at as "endAt",
  quantity, total_count as "totalCount", auth_attempts as "authAttempts", paid_count as "paidCount",
  remaining_count as "remainingCount", short_url as "shortUrl", has_scheduled_changes as "hasScheduledChanges",
  change_scheduled_at as "changeScheduledAt", offer_id as "offerId", authorization_payment_id as "authorizationPaymentId",
  authorization_verified_at as "authorizationVerifiedAt", notes, provider_created_at as "providerCreatedAt",
  synced_at as "syncedAt", created_at as "createdAt", updated_at as "updatedAt"`;

const intOrNull = (v: unknown) => (v === null || v === undefined || v === '' ? null : Number(v));

/**
 * Creates or refreshes the mirror of a Razorpay subscription. The subject is kept when the
 * object carries none (Razorpay echoes notes, but a sync of an old one may not).
 */
export async function upsertSubscription(
  db: Queryable,
  env: Environment,
  s: RzpObject,
  subject: { type: string; id: string } | null,
  now: Date,
  createdBy: string | null = null,
): Promise<SubscriptionRow> {
  const [row] = await db<SubscriptionRow[]>`
    insert into payments.razorpay_subscriptions (environment, subscription_id, plan_id, customer_id, subject_type, subject_id,
      status, current_start, current_end, ended_at, charge_at, start_at, end_at, quantity, total_count, auth_attempts,
      paid_count, remaining_count, short_url, has_scheduled_changes, change_scheduled_at, offer_id, notes,
      provider_created_at, raw, created_by, synced_at, created_at, updated_at)
    values (${env}, ${s.id}, ${s.plan_id}, ${s.customer_id ?? null}, ${subject?.type ?? null}, ${subject?.id ?? null},
      ${s.status}, ${fromSeconds(s.current_start)}, ${fromSeconds(s.current_end)}, ${fromSeconds(s.ended_at)},
      ${fromSeconds(s.charge_at)}, ${fromSeconds(s.start_at)}, ${fromSeconds(s.end_at)}, ${intOrNull(s.quantity)},
      ${intOrNull(s.total_count)}, ${intOrNull(s.auth_attempts)}, ${intOrNull(s.paid_count)}, ${intOrNull(s.remaining_count)},
      ${s.short_url ?? null}, ${s.has_scheduled_changes === true}, ${fromSeconds(s.change_scheduled_at)},
      ${s.offer_id ?? null}, ${jsonText(notesOf(s.notes))}::text::jsonb, ${fromSeconds(s.created_at)},
      ${jsonText(s)}::text::jsonb, ${createdBy}, ${now}, ${now}, ${now})
    on conflict (environment, subscription_id) do update set plan_id = excluded.plan_id,
      customer_id = coalesce(excluded.customer_id, payments.razorpay_subscriptions.customer_id),
      subject_type = coalesce(excluded.subject_type, payments.razorpay_subscriptions.subject_type),
      subject_id = coalesce(excluded.subject_id, payments.razorpay_subscriptions.subject_id),
      status = excluded.status, current_start = excluded.current_start, current_end = excluded.current_end,
      ended_at = excluded.ended_at, charge_at = excluded.charge_at, start_at = excluded.start_at, end_at = excluded.end_at,
      quantity = excluded.quantity, total_count = excluded.total_count, auth_attempts = excluded.auth_attempts,
      paid_count = excluded.paid_count, remaining_count = excluded.remaining_count, short_url = excluded.short_url,
      has_scheduled_changes = excluded.has_scheduled_changes, change_scheduled_at = excluded.change_scheduled_at,
      offer_id = excluded.offer_id, notes = excluded.notes, provider_created_at = excluded.provider_created_at,
      raw = excluded.raw, synced_at = excluded.synced_at, updated_at = excluded.updated_at
    returning ${subscriptionColumns(db)}`;
  return row!;
}

/** The checked authorisation payment of a subscription; `created` becomes `authenticated`. */
export async function markSubscriptionVerified(
  db: Queryable,
  env: Environment,
  subscriptionId: string,
  paymentId: string,
  now: Date,
): Promise<SubscriptionRow | undefined> {
  const [row] = await db<SubscriptionRow[]>`
    update payments.razorpay_subscriptions set authorization_payment_id = ${paymentId},
      authorization_verified_at = ${now}, status = case when status = 'created' then 'authenticated' else status end,
      updated_at = ${now}
    where environment = ${env} and subscription_id = ${subscriptionId}
    returning ${subscriptionColumns(db)}`;
  return row;
}

/**
 * The manage probe, run as the caller: a no-op update that row-level security must allow.
 * Returns the subject of the row, or undefined when the caller cannot see it.
 */
export async function touchSubscription(
  db: Queryable,
  env: Environment,
  subscriptionId: string,
): Promise<{ subjectType: string | null; subjectId: string | null } | undefined> {
  const [row] = await db<{ subjectType: string | null; subjectId: string | null }[]>`
    update payments.razorpay_subscriptions set updated_at = updated_at
    where environment = ${env} and subscription_id = ${subscriptionId}
    returning subject_type as "subjectType", subject_id as "subjectId"`;
  return row;
}

/** The creation probe, run as the caller in a transaction that is rolled back. */
export async function probeSubscriptionInsert(
  db: Queryable,
  env: Environment,
  probeId: string,
  planId: string,
  subject: { type: string; id: string },
  now: Date,
): Promise<void> {
  await db`
    insert into payments.razorpay_subscriptions (environment, subscription_id, plan_id, subject_type, subject_id, status, synced_at)
    values (${env}, ${probeId}, ${planId}, ${subject.type}, ${subject.id}, 'created', ${now})`;
}

export async function listSubscriptions(
  db: Queryable,
  env: Environment,
  subject: { type: string; id: string } | null,
  limit: number,
): Promise<SubscriptionRow[]> {
  return db<SubscriptionRow[]>`
    select ${subscriptionColumns(db)} from payments.razorpay_subscriptions
    where environment = ${env}
      ${subject ? db`and subject_type = ${subject.type} and subject_id = ${subject.id}` : db``}
    order by updated_at desc limit ${limit}`;
}

/** The subject a subscription's mirror row holds (webhooks use it when notes carry none). */
export async function subjectOfSubscription(
  db: Queryable,
  env: Environment,
  subscriptionId: string,
): Promise<{ type: string; id: string } | null> {
  const [row] = await db<{ type: string | null; id: string | null }[]>`
    select subject_type as type, subject_id as id from payments.razorpay_subscriptions
    where environment = ${env} and subscription_id = ${subscriptionId}`;
  return row?.type && row.id ? { type: row.type, id: row.id } : null;
}
