// The webhook delivery log's wire contract: one delivery (a message to one URL) and the list query.
import { z } from 'zod';

export const deliverySchema = z.object({
  id: z.string(),
  messageId: z.string(),
  url: z.string(),
  state: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  nextAttemptAt: z.string(),
  lastStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
});
export type Delivery = z.infer<typeof deliverySchema>;

export const listDeliveriesQuery = z.object({
  messageId: z.uuid().optional(),
  state: z.enum(['pending', 'delivered', 'failed']).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});
export type ListDeliveries = z.infer<typeof listDeliveriesQuery>;

export const deliveryIdParams = z.object({ id: z.uuid() });
