// The webhook delivery log, the admin side: list deliveries (newest first) and retry one now.
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import * as repo from './webhook-deliveries.repo.js';
import type { Delivery, ListDeliveries } from './webhooks.schemas.js';

const toDelivery = (row: repo.DeliveryRow): Delivery => ({
  ...row,
  nextAttemptAt: row.nextAttemptAt.toISOString(),
  deliveredAt: row.deliveredAt?.toISOString() ?? null,
  createdAt: row.createdAt.toISOString(),
});

export function createWebhooksService(deps: Pick<Deps, 'sql' | 'clock'>) {
  return {
    async list(query: ListDeliveries): Promise<Delivery[]> {
      return (await repo.listDeliveries(deps.sql, query)).map(toDelivery);
    },
    async retry(id: string): Promise<Delivery> {
      const row = await repo.retryDelivery(deps.sql, id, deps.clock.now());
      if (!row) {
        throw new AppError('REALTIME_WEBHOOK_DELIVERY_NOT_FOUND', undefined, {
          nextActions: 'List the deliveries with GET /api/realtime/webhook-deliveries and use one of their ids.',
        });
      }
      return toDelivery(row);
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
