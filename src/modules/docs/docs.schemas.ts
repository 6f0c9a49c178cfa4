// The agent docs contract (reference §8.2): the topics the MCP server's fetch-docs and
// fetch-sdk-docs tools ask for, and which Markdown file of docs/agents/ answers each.
import { z } from 'zod';

/** fetch-docs types → docs/agents/<file>.md */
export const DOC_TYPES = {
  instructions: 'instructions',
  'auth-sdk': 'auth',
  'db-sdk': 'db',
  'storage-sdk': 'storage',
  'functions-sdk': 'functions',
  'ai-integration-sdk': 'ai',
  'real-time': 'realtime',
  deployment: 'deployment',
  payments: 'payments',
} as const;

/** fetch-sdk-docs features (each file covers the TypeScript SDK and the REST routes). */
export const FEATURES = ['db', 'storage', 'functions', 'auth', 'ai', 'realtime', 'payments'] as const;
/** Languages with docs; Swift and Kotlin SDK docs are not written for Plinth (404). */
export const LANGUAGES = ['typescript', 'rest-api'] as const;

/** One parameter name for both routes (the router merges them): a doc type, or an SDK feature. */
export const docTypeParams = z.object({ topic: z.string() });
export const sdkDocParams = z.object({ topic: z.string(), language: z.string() });
export const docAnswer = z.object({ type: z.string(), content: z.string() });
export const docIndex = z.array(z.object({ type: z.string(), filename: z.string(), endpoint: z.string() }));
