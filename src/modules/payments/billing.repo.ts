// SQL for the billing mirror: customers, subject → customer mappings, subscriptions and their
// items. Subscription writes carry the processor's time of that state; an older state never
// overwrites a newer one (webhooks arrive out of order).
import type Stripe from 'stripe';
import type { Queryable } from '../../core/db.js';
import { idOf, toDate, type Environment } from './processor.js';
import { jsonText } from '../../core/json-guard.js';

export const SUBJECT_TYPE_KEY = 'svc_subject_type';
export const SUBJECT_ID_KEY = 'svc_subject_id';

export interface Subject {
  type: string;
  id: string;
}

export function subjectOf(metadata: Record<string, string> | null | undefined): Subject | null {
  const type = metadata?.[SUBJECT_TYPE_KEY];
  const id = metadata?.[SUBJECT_ID_KEY];
  return type && id ? { type, id } : null;
}

export async function upsertCustomer(
  db: Queryable,
  env: Environment,
  c: Stripe.Customer | Stripe.DeletedCustomer,
  now: Date,
): Promise<void> {
  const deleted = 'deleted' in c && c.deleted === true;
  const full = deleted ? null : (c as Stripe.Customer);
  await db`
    insert into payments.customers (environment, processor_customer_id, email, name, deleted, metadata, raw, synced_at)
    values (${env}, ${c.id}, ${full?.email ?? null}, ${full?.name ?? null}, ${deleted}, ${jsonText(full?.metadata ?? {})}::text::jsonb,
      ${jsonText(c)}::text::jsonb, ${now})
    on conflict (environment, processor_customer_id) do update set email = excluded.email, name = excluded.name,
      deleted = excluded.deleted, metadata = excluded.metadata, raw = excluded.raw, synced_at = excluded.synced_at`;
  const subject = subjectOf(full?.metadata);
  if (deleted) {
    await db`delete from payments.customer_mappings where environment = ${env} and processor_customer_id = ${c.id}`;
  } else if (subject) {
    await upsertMapping(db, env, subject, c.id, now);
  }
}

export async function upsertMapping(
  db: Queryable,
  env: Environment,
  subject: Subject,
  customerId: string,
  now: Date,
): Promise<void> {
  await db`
    insert into payments.customer_mappings (environment, subject_type, subject_id, processor_customer_id, updated_at)
    values (${env}, ${subject.type}, ${subject.id}, ${customerId}, ${now})
    on conflict (environment, subject_type, subject_id) do update
      set processor_customer_id = excluded.processor_customer_id, updated_at = excluded.updated_at`;
}

export async function findMapping(db: Queryable, env: Environment, subject: Subject): Promise<string | undefined> {
  const [row] = await db<{ id: string }[]>`
    select processor_customer_id as id from payments.customer_mappings
    where environment = ${env} and subject_type = ${subject.type} and subject_id = ${subject.id}`;
  return row?.id;
}

async function subjectOfCustomer(db: Queryable, env: Environment, customerId: string): Promise<Subject | null> {
  const [row] = await db<Subject[]>`
    select subject_type as type, subject_id as id from payments.customer_mappings
    where environment = ${env} and processor_customer_id = ${customerId} limit 1`;
  return row ?? null;
}

/**
 * Writes a subscription and its items as of `stateAt`; returns false (and writes nothing) when
 * the mirror already holds a newer state of it.
 */
export async function upsertSubscription(
  db: Queryable,
  env: Environment,
  s: Stripe.Subscription,
  stateAt: Date,
  now: Date,
): Promise<boolean> {
  const customerId = idOf(s.customer)!;
  const subject = subjectOf(s.metadata) ?? (await subjectOfCustomer(db, env, customerId));
  const first = s.items?.data[0];
  const rows = await db`
    insert into payments.subscriptions (environment, processor_subscription_id, processor_customer_id, subject_type, subject_id,
      status, current_period_start, current_period_end, cancel_at_period_end, cancel_at, canceled_at, trial_start, trial_end,
      latest_invoice_id, metadata, raw, state_at, synced_at, created_at, updated_at)
    values (${env}, ${s.id}, ${customerId}, ${subject?.type ?? null}, ${subject?.id ?? null}, ${s.status},
      ${toDate(first?.current_period_start)}, ${toDate(first?.current_period_end)}, ${s.cancel_at_period_end ?? false},
      ${toDate(s.cancel_at)}, ${toDate(s.canceled_at)}, ${toDate(s.trial_start)}, ${toDate(s.trial_end)},
      ${idOf(s.latest_invoice)}, ${jsonText(s.metadata ?? {})}::text::jsonb, ${jsonText(s)}::text::jsonb, ${stateAt}, ${now}, ${now}, ${now})
    on conflict (environment, processor_subscription_id) do update set processor_customer_id = excluded.processor_customer_id,
      subject_type = excluded.subject_type, subject_id = excluded.subject_id, status = excluded.status,
      current_period_start = excluded.current_period_start, current_period_end = excluded.current_period_end,
      cancel_at_period_end = excluded.cancel_at_period_end, cancel_at = excluded.cancel_at, canceled_at = excluded.canceled_at,
      trial_start = excluded.trial_start, trial_end = excluded.trial_end, latest_invoice_id = excluded.latest_invoice_id,
      metadata = excluded.metadata, raw = excluded.raw, state_at = excluded.state_at, synced_at = excluded.synced_at,
      updated_at = excluded.updated_at
    where payments.subscriptions.state_at is null or payments.subscriptions.state_at <= excluded.state_at
    returning 1`;
  if (rows.length === 0) return false;
  const items = s.items?.data ?? [];
  await db`
    delete from payments.subscription_items where environment = ${env} and processor_subscription_id = ${s.id}
      and not (processor_subscription_item_id = any(${items.map((i) => i.id)}))`;
  for (const item of items) {
    await db`
      insert into payments.subscription_items (environment, processor_subscription_item_id, processor_subscription_id,
        processor_product_id, processor_price_id, quantity, metadata, created_at, updated_at)
      values (${env}, ${item.id}, ${s.id}, ${idOf(item.price?.product as string | { id: string } | null)}, ${item.price?.id ?? null},
        ${item.quantity ?? null}, ${jsonText(item.metadata ?? {})}::text::jsonb, ${now}, ${now})
      on conflict (environment, processor_subscription_item_id) do update set processor_product_id = excluded.processor_product_id,
        processor_price_id = excluded.processor_price_id, quantity = excluded.quantity, metadata = excluded.metadata,
        updated_at = excluded.updated_at`;
  }
  return true;
}

export async function listSubscriptions(db: Queryable, env: Environment, subject: Subject | null, limit: number) {
  return db`
    select s.environment, s.processor_subscription_id as "processorSubscriptionId", s.processor_customer_id as "processorCustomerId",
      s.subject_type as "subjectType", s.subject_id as "subjectId", s.status,
      s.current_period_start as "currentPeriodStart", s.current_period_end as "currentPeriodEnd",
      s.cancel_at_period_end as "cancelAtPeriodEnd", s.cancel_at as "cancelAt", s.canceled_at as "canceledAt",
      s.trial_start as "trialStart", s.trial_end as "trialEnd", s.latest_invoice_id as "latestInvoiceId", s.metadata,
      s.synced_at as "syncedAt", s.created_at as "createdAt", s.updated_at as "updatedAt",
      coalesce((
        select json_agg(json_build_object(
          'environment', i.environment, 'processorSubscriptionItemId', i.processor_subscription_item_id,
          'processorSubscriptionId', i.processor_subscription_id, 'processorProductId', i.processor_product_id,
          'processorPriceId', i.processor_price_id, 'quantity', i.quantity, 'metadata', i.metadata,
          'createdAt', i.created_at, 'updatedAt', i.updated_at) order by i.processor_subscription_item_id)
        from payments.subscription_items i
        where i.environment = s.environment and i.processor_subscription_id = s.processor_subscription_id
      ), '[]') as items
    from payments.subscriptions s
    where s.environment = ${env}
      ${subject ? db`and s.subject_type = ${subject.type} and s.subject_id = ${subject.id}` : db``}
    order by s.updated_at desc, s.processor_subscription_id
    limit ${limit}`;
}

export async function countUnmappedSubscriptions(db: Queryable, env: Environment): Promise<number> {
  const [row] = await db<{ n: number }[]>`
    select count(*)::int as n from payments.subscriptions where environment = ${env} and subject_type is null`;
  return row!.n;
}

/** Forgets subject mappings to customers the processor no longer has (after a full sync). */
export async function pruneMappings(db: Queryable, env: Environment, customerIds: string[]): Promise<void> {
  await db`
    delete from payments.customer_mappings
    where environment = ${env} and not (processor_customer_id = any(${customerIds}))`;
}

/** Notes the subscription's latest invoice (from an invoice event). */
export async function setLatestInvoice(
  db: Queryable,
  env: Environment,
  subscriptionId: string,
  invoiceId: string,
  now: Date,
): Promise<void> {
  await db`
    update payments.subscriptions set latest_invoice_id = ${invoiceId}, updated_at = ${now}
    where environment = ${env} and processor_subscription_id = ${subscriptionId}`;
}
