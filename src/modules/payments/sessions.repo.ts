// SQL for customer portal and checkout session records. Inserts run in the caller's request
// scope, so the tables' row-level security decides whose billing subject the caller may use.
import type { Queryable } from '../../core/db.js';
import type { Environment } from './processor.js';

const portalColumns = (db: Queryable) => db`
  id, environment, status, subject_type as "subjectType", subject_id as "subjectId",
  processor_customer_id as "processorCustomerId", return_url as "returnUrl", configuration_id as "configuration",
  url, last_error as "lastError", created_at as "createdAt", updated_at as "updatedAt"`;
const checkoutColumns = (db: Queryable) => db`
  id, environment, mode, status, payment_status as "paymentStatus", subject_type as "subjectType", subject_id as "subjectId",
  customer_email as "customerEmail", processor_checkout_session_id as "processorCheckoutSessionId",
  processor_customer_id as "processorCustomerId", processor_payment_intent_id as "processorPaymentIntentId",
  processor_subscription_id as "processorSubscriptionId", url, last_error as "lastError",
  created_at as "createdAt", updated_at as "updatedAt"`;

export interface PortalSessionRow {
  id: string;
  environment: Environment;
  status: 'initialized' | 'created' | 'failed';
  subjectType: string;
  subjectId: string;
  processorCustomerId: string | null;
  returnUrl: string | null;
  configuration: string | null;
  url: string | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface CheckoutSessionRow {
  id: string;
  environment: Environment;
  mode: 'payment' | 'subscription';
  status: 'initialized' | 'open' | 'completed' | 'expired' | 'failed';
  paymentStatus: 'paid' | 'unpaid' | 'no_payment_required' | null;
  subjectType: string | null;
  subjectId: string | null;
  customerEmail: string | null;
  processorCheckoutSessionId: string | null;
  processorCustomerId: string | null;
  processorPaymentIntentId: string | null;
  processorSubscriptionId: string | null;
  url: string | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export async function insertPortalSession(
  db: Queryable,
  s: {
    environment: Environment;
    subjectType: string;
    subjectId: string;
    returnUrl: string | null;
    configuration: string | null;
    createdBy: string;
  },
  now: Date,
): Promise<string> {
  const [row] = await db<{ id: string }[]>`
    insert into payments.customer_portal_sessions (environment, status, subject_type, subject_id, return_url, configuration_id, created_by, created_at, updated_at)
    values (${s.environment}, 'initialized', ${s.subjectType}, ${s.subjectId}, ${s.returnUrl}, ${s.configuration}, ${s.createdBy}, ${now}, ${now})
    returning id`;
  return row!.id;
}

export async function finishPortalSession(
  db: Queryable,
  id: string,
  outcome: {
    status: 'created' | 'failed';
    processorCustomerId?: string | null;
    url?: string | null;
    lastError?: string | null;
  },
  now: Date,
): Promise<PortalSessionRow> {
  const [row] = await db<PortalSessionRow[]>`
    update payments.customer_portal_sessions set status = ${outcome.status},
      processor_customer_id = coalesce(${outcome.processorCustomerId ?? null}, processor_customer_id),
      url = ${outcome.url ?? null}, last_error = ${outcome.lastError ?? null}, updated_at = ${now}
    where id = ${id} returning ${portalColumns(db)}`;
  return row!;
}

export interface CheckoutInsert {
  environment: Environment;
  mode: 'payment' | 'subscription';
  subjectType: string | null;
  subjectId: string | null;
  customerEmail: string | null;
  idempotencyKey: string | null;
  fingerprint: string;
  createdBy: string;
}

/** The new row's id, or undefined when another request holds the same idempotency key. */
export async function insertCheckoutSession(db: Queryable, s: CheckoutInsert, now: Date): Promise<string | undefined> {
  const [row] = await db<{ id: string }[]>`
    insert into payments.checkout_sessions (environment, mode, status, subject_type, subject_id, customer_email,
      idempotency_key, request_fingerprint, created_by, created_at, updated_at)
    values (${s.environment}, ${s.mode}, 'initialized', ${s.subjectType}, ${s.subjectId}, ${s.customerEmail},
      ${s.idempotencyKey}, ${s.fingerprint}, ${s.createdBy}, ${now}, ${now})
    on conflict (environment, idempotency_key) where idempotency_key is not null do nothing
    returning id`;
  return row?.id;
}

export async function findCheckoutByKey(
  db: Queryable,
  env: Environment,
  key: string,
): Promise<(CheckoutSessionRow & { fingerprint: string }) | undefined> {
  const [row] = await db<(CheckoutSessionRow & { fingerprint: string })[]>`
    select ${checkoutColumns(db)}, request_fingerprint as fingerprint from payments.checkout_sessions
    where environment = ${env} and idempotency_key = ${key}`;
  return row;
}

export async function finishCheckoutSession(
  db: Queryable,
  id: string,
  outcome:
    | {
        status: 'open';
        processorCheckoutSessionId: string;
        processorCustomerId: string | null;
        url: string | null;
        paymentStatus: string | null;
      }
    | { status: 'failed'; lastError: string },
  now: Date,
): Promise<CheckoutSessionRow> {
  const open = outcome.status === 'open' ? outcome : null;
  const [row] = await db<CheckoutSessionRow[]>`
    update payments.checkout_sessions set status = ${outcome.status},
      processor_checkout_session_id = coalesce(${open?.processorCheckoutSessionId ?? null}, processor_checkout_session_id),
      processor_customer_id = coalesce(${open?.processorCustomerId ?? null}, processor_customer_id),
      payment_status = coalesce(${open?.paymentStatus ?? null}, payment_status),
      url = coalesce(${open?.url ?? null}, url),
      last_error = ${outcome.status === 'failed' ? outcome.lastError : null}, updated_at = ${now}
    where id = ${id} returning ${checkoutColumns(db)}`;
  return row!;
}

/** Applies a checkout session's state from the processor (webhooks); false when unknown here. */
export async function applyCheckoutState(
  db: Queryable,
  env: Environment,
  s: {
    id: string;
    localId: string | null;
    status: string;
    paymentStatus: string | null;
    customerId: string | null;
    paymentIntentId: string | null;
    subscriptionId: string | null;
  },
  now: Date,
): Promise<CheckoutSessionRow | undefined> {
  const [row] = await db<CheckoutSessionRow[]>`
    update payments.checkout_sessions set status = ${s.status}, payment_status = coalesce(${s.paymentStatus}, payment_status),
      processor_checkout_session_id = ${s.id},
      processor_customer_id = coalesce(${s.customerId}, processor_customer_id),
      processor_payment_intent_id = coalesce(${s.paymentIntentId}, processor_payment_intent_id),
      processor_subscription_id = coalesce(${s.subscriptionId}, processor_subscription_id), updated_at = ${now}
    where environment = ${env}
      and (processor_checkout_session_id = ${s.id} or id::text = ${s.localId ?? ''})
    returning ${checkoutColumns(db)}`;
  return row;
}
