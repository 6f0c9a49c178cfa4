// The shapes of the realtime admin API the screen reads (/api/realtime/...).

export interface Channel {
  id: string;
  pattern: string;
  description: string | null;
  webhookUrls: string[] | null;
  enabled: boolean;
  createdAt: string;
}

export interface RealtimeMessage {
  id: string;
  eventName: string;
  channelName: string;
  payload: unknown;
  senderType: 'system' | 'user';
  senderId: string | null;
  wsAudienceCount: number;
  whAudienceCount: number;
  whDeliveredCount: number;
  createdAt: string;
}

export interface Policy {
  policyName: string;
  tableName: string;
  command: string;
  roles: string[];
  using: string | null;
  withCheck: string | null;
}

export interface Permissions {
  subscribe: { policies: Policy[] };
  publish: { policies: Policy[] };
}

export interface Delivery {
  id: string;
  messageId: string;
  url: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  nextAttemptAt: string;
  lastStatus: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  createdAt: string;
}

export const channelsKey = ['realtime', 'channels'] as const;
