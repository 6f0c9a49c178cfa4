// SQL for what Plinth mirrors of a Razorpay account per environment: its connection row, catalog
// items and plans, customers (with the billing subject they pay for) and transactions.
import type { Queryable } from '../../../core/db.js';
import { jsonText } from '../../../core/json-guard.js';
import type { Environment } from '../processor.js';
import { fromSeconds, notesOf, type RzpObject } from './client.js';
import type { CustomerRow, ItemRow, PlanRow, TransactionRow } from './razorpay.schemas.js';

export const secretNames = (env: Environment) => {
  const E = env.toUpperCase();
  return {
    keyId: `RAZORPAY_${E}_KEY_ID`,
    keySecret: `RAZORPAY_${E}_KEY_SECRET`,
    webhookSecret: `RAZORPAY_${E}_WEBHOOK_SECRET`,
    previousWebhookSecret: `RAZORPAY_${E}_WEBHOOK_SECRET_PREVIOUS`,
  };
};

export interface ConnectionRow {
  environment: Environment;
  keyId: string;
  accountId: string | null;
  previousWebhookSecretUntil: Date | null;
  webhookRotatedAt: Date | null;
  lastSyncedAt: Date | null;
  lastSyncStatus: 'succeeded' | 'failed' | null;
  lastSyncError: string | null;
  lastSyncCounts: Record<string, number> | null;
}

export async function findConnection(db: Queryable, env: Environment): Promise<ConnectionRow | undefined> {
  const [row] = await db<ConnectionRow[]>`
    select environment, key_id as "keyId", account_id as "accountId",
      previous_webhook_secret_until as "previousWebhookSecretUntil", webhook_rotated_at as "webhookRotatedAt",
      last_synced_at as "lastSyncedAt", last_sync_status as "lastSyncStatus", last_sync_error as "lastSyncError",
      last_sync_counts as "lastSyncCounts"
    from payments.razorpay_connections where environment = ${env}`;
  return row;
}

export async function upsertConnection(db: Queryable, env: Environment, keyId: string, now: Date): Promise<void> {
  await db`
    insert into payments.razorpay_connections (environment, key_id, updated_at) values (${env}, ${keyId}, ${now})
    on conflict (environment) do update set key_id = excluded.key_id, updated_at = excluded.updated_at,
      account_id = case when payments.razorpay_connections.key_id = excluded.key_id then payments.razorpay_connections.account_id end`;
}

export async function recordRotation(db: Queryable, env: Environment, graceUntil: Date | null, now: Date) {
  await db`
    update payments.razorpay_connections set previous_webhook_secret_until = ${graceUntil}, webhook_rotated_at = ${now},
      updated_at = ${now}
    where environment = ${env}`;
}

export async function recordAccount(db: Queryable, env: Environment, accountId: string): Promise<void> {
  await db`update payments.razorpay_connections set account_id = ${accountId} where environment = ${env} and account_id is null`;
}

export async function recordSync(
  db: Queryable,
  env: Environment,
  outcome: { status: 'succeeded' | 'failed'; error: string | null; counts: Record<string, number> | null },
  now: Date,
): Promise<void> {
  await db`
    update payments.razorpay_connections set last_synced_at = ${now}, last_sync_status = ${outcome.status},
      last_sync_error = ${outcome.error},
      last_sync_counts = ${outcome.counts === null ? null : jsonText(outcome.counts)}::text::jsonb, updated_at = ${now}
    where environment = ${env}`;
}

export async function deleteConnection(db: Queryable, env: Environment): Promise<void> {
  await db`delete from payments.razorpay_connections where environment = ${env}`;
}

/** Forgets every mirrored row of an environment (its Razorpay account changed or was removed). */
export async function clearMirror(db: Queryable, env: Environment): Promise<void> {
  for (const table of ['razorpay_items', 'razorpay_plans', 'razorpay_customers', 'razorpay_transactions']) {
    await db`delete from ${db(`payments.${table}`)} where environment = ${env}`;
  }
  await db`delete from payments.razorpay_subscriptions where environment = ${env}`;
  await db`delete from payments.razorpay_orders where environment = ${env}`;
}

const itemColumns = (db: Queryable) => db`
  environment, item_id as "itemId", name, description, active, amount::float8 as amount,
  unit_amount::float8 as "unitAmount", currency, type, provider_created_at as "providerCreatedAt", synced_at as "syncedAt"`;
const planColumns = (db: Queryable) => db`
  environment, plan_id as "planId", item_id as "itemId", period, interval, amount::float8 as amount,
  unit_amount::float8 as "unitAmount", currency, active, notes, provider_created_at as "providerCreatedAt", synced_at as "syncedAt"`;

export async function upsertItem(db: Queryable, env: Environment, i: RzpObject, now: Date) {
  const [row] = await db<ItemRow[]>`
    insert into payments.razorpay_items (environment, item_id, name, description, active, amount, unit_amount, currency,
      type, provider_created_at, raw, synced_at)
    values (${env}, ${i.id}, ${i.name ?? ''}, ${i.description ?? null}, ${i.active !== false}, ${i.amount ?? null},
      ${i.unit_amount ?? i.amount ?? null}, ${String(i.currency ?? '').toUpperCase()}, ${i.type ?? null},
      ${fromSeconds(i.created_at)}, ${jsonText(i)}::text::jsonb, ${now})
    on conflict (environment, item_id) do update set name = excluded.name, description = excluded.description,
      active = excluded.active, amount = excluded.amount, unit_amount = excluded.unit_amount, currency = excluded.currency,
      type = excluded.type, provider_created_at = excluded.provider_created_at, raw = excluded.raw, synced_at = excluded.synced_at
    returning ${itemColumns(db)}`;
  return row!;
}

export async function upsertPlan(db: Queryable, env: Environment, p: RzpObject, now: Date) {
  const item = (p.item ?? {}) as RzpObject;
  const [row] = await db<PlanRow[]>`
    insert into payments.razorpay_plans (environment, plan_id, item_id, period, interval, amount, unit_amount, currency,
      active, notes, provider_created_at, raw, synced_at)
    values (${env}, ${p.id}, ${item.id ?? ''}, ${p.period}, ${Number(p.interval)}, ${item.amount ?? null},
      ${item.unit_amount ?? item.amount ?? null}, ${String(item.currency ?? '').toUpperCase()}, ${item.active !== false},
      ${jsonText(notesOf(p.notes))}::text::jsonb, ${fromSeconds(p.created_at)}, ${jsonText(p)}::text::jsonb, ${now})
    on conflict (environment, plan_id) do update set item_id = excluded.item_id, period = excluded.period,
      interval = excluded.interval, amount = excluded.amount, unit_amount = excluded.unit_amount,
      currency = excluded.currency, active = excluded.active, notes = excluded.notes,
      provider_created_at = excluded.provider_created_at, raw = excluded.raw, synced_at = excluded.synced_at
    returning ${planColumns(db)}`;
  return row!;
}

export const listItems = (db: Queryable, env: Environment) =>
  db<
    ItemRow[]
  >`select ${itemColumns(db)} from payments.razorpay_items where environment = ${env} order by provider_created_at desc nulls last, item_id`;
export const listPlans = (db: Queryable, env: Environment) =>
  db<
    PlanRow[]
  >`select ${planColumns(db)} from payments.razorpay_plans where environment = ${env} order by provider_created_at desc nulls last, plan_id`;

export async function upsertCustomer(
  db: Queryable,
  env: Environment,
  c: RzpObject,
  subject: { type: string; id: string } | null,
  now: Date,
): Promise<void> {
  await db`
    insert into payments.razorpay_customers (environment, customer_id, name, email, contact, subject_type, subject_id,
      notes, raw, synced_at)
    values (${env}, ${c.id}, ${c.name ?? null}, ${c.email ?? null}, ${c.contact ?? null}, ${subject?.type ?? null},
      ${subject?.id ?? null}, ${jsonText(notesOf(c.notes))}::text::jsonb, ${jsonText(c)}::text::jsonb, ${now})
    on conflict (environment, customer_id) do update set
      name = coalesce(excluded.name, payments.razorpay_customers.name),
      email = coalesce(excluded.email, payments.razorpay_customers.email),
      contact = coalesce(excluded.contact, payments.razorpay_customers.contact),
      subject_type = coalesce(excluded.subject_type, payments.razorpay_customers.subject_type),
      subject_id = coalesce(excluded.subject_id, payments.razorpay_customers.subject_id),
      notes = case when excluded.notes = '{}' then payments.razorpay_customers.notes else excluded.notes end,
      raw = coalesce(excluded.raw, payments.razorpay_customers.raw), synced_at = excluded.synced_at`;
}

/** The subject a Razorpay customer pays for, if one is known. */
export async function subjectOfCustomer(db: Queryable, env: Environment, customerId: string) {
  const [row] = await db<{ type: string | null; id: string | null }[]>`
    select subject_type as type, subject_id as id from payments.razorpay_customers
    where environment = ${env} and customer_id = ${customerId}`;
  return row?.type && row.id ? { type: row.type, id: row.id } : null;
}

export const listCustomers = (db: Queryable, env: Environment, limit: number) =>
  db<
    CustomerRow[]
  >`select environment, customer_id as "customerId", name, email, contact, subject_type as "subjectType",
      subject_id as "subjectId", synced_at as "syncedAt"
    from payments.razorpay_customers where environment = ${env} order by synced_at desc, customer_id limit ${limit}`;

export interface TransactionInsert {
  objectId: string;
  type: 'payment' | 'refund' | 'invoice';
  status: string;
  orderId: string | null;
  paymentId: string | null;
  subscriptionId: string | null;
  invoiceId: string | null;
  customerId: string | null;
  subject: { type: string; id: string } | null;
  amount: number | null;
  amountRefunded: number;
  currency: string | null;
  method: string | null;
  email: string | null;
  contact: string | null;
  errorDescription: string | null;
  providerCreatedAt: Date | null;
  raw: RzpObject;
}

export async function upsertTransaction(db: Queryable, env: Environment, t: TransactionInsert, now: Date) {
  await db`
    insert into payments.razorpay_transactions (environment, object_id, type, status, order_id, payment_id, subscription_id,
      invoice_id, customer_id, subject_type, subject_id, amount, amount_refunded, currency, method, email, contact,
      error_description, provider_created_at, raw, created_at, updated_at)
    values (${env}, ${t.objectId}, ${t.type}, ${t.status}, ${t.orderId}, ${t.paymentId}, ${t.subscriptionId}, ${t.invoiceId},
      ${t.customerId}, ${t.subject?.type ?? null}, ${t.subject?.id ?? null}, ${t.amount}, ${t.amountRefunded},
      ${t.currency}, ${t.method}, ${t.email}, ${t.contact}, ${t.errorDescription}, ${t.providerCreatedAt},
      ${jsonText(t.raw)}::text::jsonb, ${now}, ${now})
    on conflict (environment, object_id) do update set status = excluded.status,
      order_id = coalesce(excluded.order_id, payments.razorpay_transactions.order_id),
      subscription_id = coalesce(excluded.subscription_id, payments.razorpay_transactions.subscription_id),
      invoice_id = coalesce(excluded.invoice_id, payments.razorpay_transactions.invoice_id),
      customer_id = coalesce(excluded.customer_id, payments.razorpay_transactions.customer_id),
      subject_type = coalesce(excluded.subject_type, payments.razorpay_transactions.subject_type),
      subject_id = coalesce(excluded.subject_id, payments.razorpay_transactions.subject_id),
      amount = excluded.amount, amount_refunded = greatest(excluded.amount_refunded, payments.razorpay_transactions.amount_refunded),
      currency = excluded.currency, method = excluded.method, email = excluded.email, contact = excluded.contact,
      error_description = excluded.error_description, provider_created_at = excluded.provider_created_at,
      raw = excluded.raw, updated_at = excluded.updated_at`;
}

export const listTransactions = (
  db: Queryable,
  env: Environment,
  subject: { type: string; id: string } | null,
  limit: number,
) =>
  db<
    TransactionRow[]
  >`select environment, object_id as "objectId", type, status, order_id as "orderId", payment_id as "paymentId",
      subscription_id as "subscriptionId", invoice_id as "invoiceId", customer_id as "customerId",
      subject_type as "subjectType", subject_id as "subjectId", amount::float8 as amount,
      amount_refunded::float8 as "amountRefunded", currency, method, email, contact,
      error_description as "errorDescription", provider_created_at as "providerCreatedAt",
      created_at as "createdAt", updated_at as "updatedAt"
    from payments.razorpay_transactions where environment = ${env}
      ${subject ? db`and subject_type = ${subject.type} and subject_id = ${subject.id}` : db``}
    order by coalesce(provider_created_at, created_at) desc, object_id desc limit ${limit}`;

/** The subject of a local order by Razorpay order id (payments of an order inherit it). */
export async function subjectOfOrder(db: Queryable, env: Environment, orderId: string) {
  const [row] = await db<{ type: string | null; id: string | null }[]>`
    select subject_type as type, subject_id as id from payments.razorpay_orders where environment = ${env} and order_id = ${orderId}`;
  return row?.type && row.id ? { type: row.type, id: row.id } : null;
}
