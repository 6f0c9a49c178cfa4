// The realtime wire contract: admin shapes (channels, messages, stats, config) as the official
// client's platform returns them, and the channel-pattern rule.
import { z } from 'zod';

/** SQL LIKE patterns: `%` is the wildcard, `:` the separator; no `_` (LIKE's one-character wildcard). */
export const CHANNEL_PATTERN = /^[a-zA-Z0-9-]+(:[a-zA-Z0-9%:-]+)*$/;

export const channelSchema = z.object({
  id: z.string(),
  pattern: z.string(),
  description: z.string().nullable(),
  webhookUrls: z.array(z.string()).nullable(),
  enabled: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Channel = z.infer<typeof channelSchema>;

export const channelIdParams = z.object({ id: z.uuid() });

export const createChannelSchema = z.object({
  pattern: z.string().min(1).max(255),
  description: z.string().max(10_000).optional(),
  webhookUrls: z.array(z.url()).max(20).optional(),
  enabled: z.boolean().optional(),
});
export type CreateChannel = z.infer<typeof createChannelSchema>;

export const updateChannelSchema = createChannelSchema.partial();
export type UpdateChannel = z.infer<typeof updateChannelSchema>;

export const messageSchema = z.object({
  id: z.string(),
  eventName: z.string(),
  channelId: z.string().nullable(),
  channelName: z.string(),
  payload: z.unknown(),
  senderType: z.enum(['system', 'user']),
  senderId: z.string().nullable(),
  wsAudienceCount: z.number().int(),
  whAudienceCount: z.number().int(),
  whDeliveredCount: z.number().int(),
  createdAt: z.string(),
});
export type Message = z.infer<typeof messageSchema>;

export const listMessagesQuery = z.object({
  channelId: z.uuid().optional(),
  eventName: z.string().max(255).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});
export type ListMessages = z.infer<typeof listMessagesQuery>;

export const statsQuery = z.object({
  channelId: z.uuid().optional(),
  since: z.coerce.date().optional(),
});
export type StatsQuery = z.infer<typeof statsQuery>;

export const statsSchema = z.object({
  totalMessages: z.number().int(),
  whDeliveryRate: z.number().min(0).max(1),
  topEvents: z.array(z.object({ eventName: z.string(), count: z.number().int() })),
  retentionDays: z.number().int().nullable(),
});

export const configSchema = z.object({ retentionDays: z.number().int().positive().nullable() });

export const messageOnlySchema = z.object({ message: z.string() });
export const deletedCountSchema = z.object({ deleted: z.number().int() });

export const policySchema = z.object({
  policyName: z.string(),
  tableName: z.string(),
  command: z.string(),
  roles: z.array(z.string()),
  using: z.string().nullable(),
  withCheck: z.string().nullable(),
});

export const permissionsSchema = z.object({
  subscribe: z.object({ policies: z.array(policySchema) }),
  publish: z.object({ policies: z.array(policySchema) }),
});
