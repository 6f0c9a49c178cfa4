// Refunds in the history: a refund's state (an older one never overwrites a newer) and, through
// it, its payment's refunded amount, which only grows.
import type { Queryable } from '../../core/db.js';
import {
  emptyRow,
  findHistoryRow,
  findPaymentOf,
  lockHistory,
  settleRefunds,
  writeHistoryRow,
} from './history.repo.js';
import type { Environment } from './processor.js';

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
  const old = await findHistoryRow(db, env, f.refundId);
  const stale =
    old !== undefined &&
    (old.stateAt > at ||
      (old.stateAt.getTime() === at.getTime() &&
        refundRank[old.status as keyof typeof refundRank] > refundRank[f.status]));
  const payment = await findPaymentOf(db, env, f.paymentIntentId, f.chargeId);
  if (!stale) {
    const base = old ?? emptyRow(f.refundId, at);
    await writeHistoryRow(
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
    if (settled !== payment) await writeHistoryRow(db, env, settled, now);
  }
}
