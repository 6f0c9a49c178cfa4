// The client's Razorpay calls: orders and subscriptions are first recorded (or probed) in the
// caller's own request scope, so row-level security decides whose billing subject the caller may
// pay for or manage; then Razorpay is called; checkout payments are verified by signature.
import { randomBytes, randomUUID } from 'node:crypto';
import { AppError } from '../../../core/errors.js';
import type { Principal } from '../../../core/principal.js';
import type { Deps } from '../../../deps.js';
import { SUBJECT_ID_KEY, SUBJECT_TYPE_KEY } from '../billing.repo.js';
import { principalId, probeAsCaller, runAsCaller } from '../caller-scope.js';
import type { Environment } from '../processor.js';
import { callRazorpay, orderSignatureMatches, type RzpObject, subscriptionSignatureMatches } from './client.js';
import type { RazorpayConnections } from './connections.service.js';
import * as mirror from './mirror.repo.js';
import * as repo from './orders.repo.js';
import type { OrderCreate, SubscriptionCreate } from './razorpay.schemas.js';

export const ORDER_ID_NOTE = 'svc_order_id';

const refusedBy = (table: string, what: string) => (cause: unknown) =>
  new AppError('FORBIDDEN', `Razorpay ${what} is not allowed by payments.${table} row-level security policies.`, {
    cause,
    nextActions:
      'A user may pay for and manage the subject {type: "user", id: <their user id>}; other subjects need a row-level security policy on that table.',
  });

const subjectNotes = (subject: { type: string; id: string } | null | undefined): Record<string, string> =>
  subject ? { [SUBJECT_TYPE_KEY]: subject.type, [SUBJECT_ID_KEY]: subject.id } : {};

/** Checkout's prefill: only what the caller gave, keys left out rather than null. */
function prefillOf(input: { customerEmail?: string | null; customerContact?: string | null }) {
  return {
    ...(input.customerEmail ? { email: input.customerEmail } : {}),
    ...(input.customerContact ? { contact: input.customerContact } : {}),
  };
}

const failureText = (err: unknown) => (err instanceof AppError ? err.message : 'The Razorpay request failed.');

export function createRazorpayCheckout(deps: Deps, connections: RazorpayConnections) {
  const now = () => deps.clock.now();

  /** Upstream subscription → mirror row, plus the customer it brought (with the subject). */
  async function mirrorSubscription(
    env: Environment,
    s: RzpObject,
    subject: { type: string; id: string } | null,
    createdBy: string | null = null,
  ) {
    const row = await repo.upsertSubscription(deps.sql, env, s, subject, now(), createdBy);
    if (typeof s.customer_id === 'string' && subject) {
      await mirror.upsertCustomer(deps.sql, env, { id: s.customer_id }, subject, now());
    }
    return row;
  }

  return {
    async createOrder(env: Environment, principal: Principal, input: OrderCreate) {
      const id = randomUUID();
      const subject = input.subject ?? null;
      const notes = { ...input.notes, ...subjectNotes(subject) };
      // An unconfigured environment is refused before anything is recorded.
      const { client, keys } = await connections.client(env);
      await runAsCaller(deps, principal, refusedBy('razorpay_orders', 'order creation'), (db) =>
        repo.insertOrder(
          db,
          {
            id,
            environment: env,
            subjectType: subject?.type ?? null,
            subjectId: subject?.id ?? null,
            customerName: input.customerName ?? null,
            customerEmail: input.customerEmail ?? null,
            customerContact: input.customerContact ?? null,
            receipt: input.receipt ?? id.replaceAll('-', ''),
            amount: input.amount,
            currency: input.currency,
            notes,
            createdBy: principalId(principal),
          },
          now(),
        ),
      );
      try {
        const upstream = await callRazorpay('create the order', () =>
          client.orders.create({
            amount: input.amount,
            currency: input.currency,
            receipt: input.receipt ?? id.replaceAll('-', ''),
            notes: { ...notes, [ORDER_ID_NOTE]: id },
          }),
        );
        const order = await repo.recordUpstreamOrder(deps.sql, id, upstream, now());
        return {
          order,
          checkoutOptions: {
            key: keys.keyId,
            amount: order.amount,
            currency: input.currency,
            order_id: upstream.id as string,
            ...(input.description ? { description: input.description } : {}),
            ...(input.callbackUrl ? { callback_url: input.callbackUrl } : {}),
            prefill: prefillOf(input),
          },
        };
      } catch (err) {
        await repo.failOrder(deps.sql, id, failureText(err), now());
        throw err;
      }
    },

    async verifyOrder(env: Environment, input: { orderId: string; paymentId: string; signature: string }) {
      const { keys } = await connections.client(env);
      if (!orderSignatureMatches(keys.keySecret, input.orderId, input.paymentId, input.signature)) {
        throw new AppError('VALIDATION_ERROR', 'Invalid Razorpay payment signature.', {
          nextActions:
            'Send razorpay_order_id, razorpay_payment_id and razorpay_signature exactly as Razorpay Checkout returned them, to the same environment.',
        });
      }
      const order = await repo.markOrderVerified(deps.sql, env, input.orderId, input.paymentId, now());
      if (!order) {
        throw new AppError('PAYMENT_NOT_FOUND', `Razorpay ${env} order not found: ${input.orderId}`, {
          nextActions: `Create the order with POST /api/payments/razorpay/${env}/orders first.`,
        });
      }
      return { verified: true as const, order };
    },

    async createSubscription(env: Environment, principal: Principal, input: SubscriptionCreate) {
      const subject = input.subject;
      const createdBy = principalId(principal);
      // May the caller start a subscription for this subject? Asked of row-level security, then undone.
      await probeAsCaller(deps, principal, refusedBy('razorpay_subscriptions', 'subscription creation'), (db) =>
        repo.probeSubscriptionInsert(
          db,
          env,
          `sub_rls_probe_${randomBytes(8).toString('hex')}`,
          input.planId,
          subject,
          now(),
        ),
      );
      const { client, keys } = await connections.client(env);
      const upstream = await callRazorpay('create the subscription', () =>
        client.subscriptions.create({
          plan_id: input.planId,
          ...(input.totalCount !== undefined ? { total_count: input.totalCount } : {}),
          ...(input.endAt !== undefined ? { end_at: input.endAt } : {}),
          ...(input.quantity !== undefined ? { quantity: input.quantity } : {}),
          ...(input.startAt !== undefined ? { start_at: input.startAt } : {}),
          ...(input.expireBy !== undefined ? { expire_by: input.expireBy } : {}),
          ...(input.customerNotify !== undefined ? { customer_notify: input.customerNotify } : {}),
          ...(input.offerId ? { offer_id: input.offerId } : {}),
          notes: { ...input.notes, ...subjectNotes(subject) },
        }),
      );
      const subscription = await mirrorSubscription(env, upstream, subject, createdBy);
      return {
        subscription,
        checkoutOptions: {
          key: keys.keyId,
          subscription_id: upstream.id as string,
          ...(input.description ? { description: input.description } : {}),
          ...(input.callbackUrl ? { callback_url: input.callbackUrl } : {}),
          prefill: prefillOf(input),
        },
      };
    },

    async verifySubscription(
      env: Environment,
      input: { subscriptionId: string; paymentId: string; signature: string },
    ) {
      const { keys } = await connections.client(env);
      if (!subscriptionSignatureMatches(keys.keySecret, input.paymentId, input.subscriptionId, input.signature)) {
        throw new AppError('VALIDATION_ERROR', 'Invalid Razorpay subscription signature.', {
          nextActions:
            'Send razorpay_subscription_id, razorpay_payment_id and razorpay_signature exactly as Razorpay Checkout returned them, to the same environment.',
        });
      }
      const subscription = await repo.markSubscriptionVerified(
        deps.sql,
        env,
        input.subscriptionId,
        input.paymentId,
        now(),
      );
      if (!subscription) {
        throw new AppError('PAYMENT_NOT_FOUND', `Razorpay ${env} subscription not found: ${input.subscriptionId}`, {
          nextActions: `Create the subscription with POST /api/payments/razorpay/${env}/subscriptions first.`,
        });
      }
      return { verified: true as const, subscription };
    },

    /** cancel, pause or resume: only a subscription the caller may update (row-level security). */
    async manageSubscription(
      env: Environment,
      principal: Principal,
      subscriptionId: string,
      action: 'cancel' | 'pause' | 'resume',
      cancelAtCycleEnd = false,
    ) {
      const probe = await probeAsCaller(
        deps,
        principal,
        refusedBy('razorpay_subscriptions', 'subscription management'),
        (db) => repo.touchSubscription(db, env, subscriptionId),
      );
      if (!probe) {
        throw new AppError(
          'PAYMENT_NOT_FOUND',
          `Razorpay ${env} subscription not found or not manageable: ${subscriptionId}`,
          {
            nextActions: `List the caller's subscriptions; a user manages only subscriptions of their own subject.`,
          },
        );
      }
      const { client } = await connections.client(env);
      const upstream = await callRazorpay(`${action} the subscription`, () =>
        action === 'cancel'
          ? client.subscriptions.cancel(subscriptionId, cancelAtCycleEnd)
          : action === 'pause'
            ? client.subscriptions.pause(subscriptionId, { pause_at: 'now' })
            : client.subscriptions.resume(subscriptionId, { resume_at: 'now' }),
      );
      const subject = probe.subjectType && probe.subjectId ? { type: probe.subjectType, id: probe.subjectId } : null;
      return { subscription: await mirrorSubscription(env, upstream, subject) };
    },
  };
}

export type RazorpayCheckout = ReturnType<typeof createRazorpayCheckout>;
