// The shapes of the AI admin API the screen reads (/api/ai/config, settings, models, usage).

interface Credential {
  configured: boolean;
  maskedKey: string | null;
}

export interface GatewayConfig {
  apiKey: Credential;
  managementKey: Credential;
}

export interface AiSettings {
  allowAnon: boolean;
  allowedModels: string[];
}

export interface CatalogModel {
  id: string;
}

export interface UsageRow {
  day: string;
  subject: string;
  subjectKind: 'user' | 'anon' | 'admin';
  model: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
}

export interface UsageReport {
  from: string;
  to: string;
  usage: UsageRow[];
}

export const aiKey = ['ai'] as const;

export interface CallerUsage {
  subject: string;
  subjectKind: 'user' | 'anon' | 'admin';
  /** The user's email (null for other callers, or a deleted user). */
  email: string | null;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  models: string[];
  firstDay: string;
  lastDay: string;
}

export interface UsageByCaller {
  from: string;
  to: string;
  callers: number;
  usage: CallerUsage[];
}
