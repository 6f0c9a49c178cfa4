// The realtime admin service: channel patterns (validated, duplicates refused), stored messages,
// their statistics and the retention setting.
import { AppError } from '../../core/errors.js';
import { allowedOutboundOrigins, assertOutboundUrl } from '../../platform/outbound-http.js';
import { fromPgError } from '../../core/pg-errors.js';
import type { Deps } from '../../deps.js';
import { defaultRetentionDays } from './retention.js';
import * as repo from './realtime.repo.js';
import {
  CHANNEL_PATTERN,
  type Channel,
  type CreateChannel,
  type ListMessages,
  type Message,
  type StatsQuery,
  type UpdateChannel,
} from './realtime.schemas.js';

const channelNotFound = () =>
  new AppError('REALTIME_CHANNEL_NOT_FOUND', undefined, {
    nextActions: 'List the channels with GET /api/realtime/channels and use one of their ids.',
  });

function checkPattern(pattern: string | undefined): void {
  if (pattern !== undefined && !CHANNEL_PATTERN.test(pattern)) {
    throw new AppError('REALTIME_INVALID_CHANNEL_PATTERN', undefined, {
      nextActions: 'Use a pattern such as "chat:%" or "order:123" (letters, digits, "-", ":" and "%"; no "_").',
    });
  }
}

const toChannel = (row: repo.ChannelRow): Channel => ({
  ...row,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

const toMessage = (row: repo.MessageRow): Message => ({ ...row, createdAt: row.createdAt.toISOString() });

/** A duplicate pattern is a 409; other database errors as the pool reports them. */
async function writing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const mapped = fromPgError(err);
    if (mapped?.code === 'CONFLICT') {
      throw new AppError('CONFLICT', 'A channel with this pattern already exists.', {
        cause: err,
        nextActions: 'Choose another pattern, or update the existing channel.',
      });
    }
    throw mapped ?? err;
  }
}

export function createRealtimeAdminService(deps: Pick<Deps, 'sql' | 'config'>) {
  const defaultDays = defaultRetentionDays(deps.config);
  const { sql } = deps;
  /** Webhook URLs are called by this server: the outbound address policy applies when saved. */
  const allowedOrigins = allowedOutboundOrigins(deps.config);
  const checkWebhookUrls = (urls: string[] | undefined) => {
    for (const [i, url] of (urls ?? []).entries()) assertOutboundUrl(url, `webhookUrls[${i}]`, allowedOrigins);
  };
  return {
    async listChannels(): Promise<Channel[]> {
      return (await repo.listChannels(sql)).map(toChannel);
    },
    async getChannel(id: string): Promise<Channel> {
      const row = await repo.findChannel(sql, id);
      if (!row) throw channelNotFound();
      return toChannel(row);
    },
    async createChannel(input: CreateChannel): Promise<Channel> {
      checkPattern(input.pattern);
      checkWebhookUrls(input.webhookUrls);
      return toChannel(await writing(() => repo.insertChannel(sql, input)));
    },
    async updateChannel(id: string, input: UpdateChannel): Promise<Channel> {
      checkPattern(input.pattern);
      checkWebhookUrls(input.webhookUrls);
      const row = await writing(() => repo.updateChannel(sql, id, input));
      if (!row) throw channelNotFound();
      return toChannel(row);
    },
    async deleteChannel(id: string): Promise<void> {
      if (!(await repo.deleteChannel(sql, id))) throw channelNotFound();
    },
    async listMessages(query: ListMessages): Promise<Message[]> {
      return (await repo.listMessages(sql, query)).map(toMessage);
    },
    deleteMessages: () => repo.deleteMessages(sql),
    async stats(query: StatsQuery) {
      const [{ totals, topEvents }, retentionDays] = await Promise.all([
        repo.messageStats(sql, query),
        repo.readRetentionDays(sql, defaultDays),
      ]);
      return {
        totalMessages: totals.total,
        whDeliveryRate: totals.audience > 0 ? totals.delivered / totals.audience : 0,
        topEvents,
        retentionDays,
      };
    },
    async config() {
      return { retentionDays: await repo.readRetentionDays(sql, defaultDays) };
    },
    setRetentionDays: (days: number | null) => repo.writeRetentionDays(sql, days),
    /** Who may subscribe (policies on channels) and publish (policies on messages). */
    async permissions() {
      const policies = await repo.realtimePolicies(sql);
      return {
        subscribe: { policies: policies.filter((p) => p.tableName === 'channels') },
        publish: { policies: policies.filter((p) => p.tableName === 'messages') },
      };
    },
  };
}

export type RealtimeAdminService = ReturnType<typeof createRealtimeAdminService>;
