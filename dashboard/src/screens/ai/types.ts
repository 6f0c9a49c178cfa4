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
