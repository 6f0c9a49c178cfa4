// zod schemas of catalog objects: indexes, policies, triggers and functions of a schema.
import { z } from 'zod';

export const indexInfo = z.object({
  tableName: z.string(),
  indexName: z.string(),
  indexDef: z.string(),
  isUnique: z.boolean(),
  isPrimary: z.boolean(),
});
export const policyInfo = z.object({
  tableName: z.string(),
  policyName: z.string(),
  command: z.string(),
  permissive: z.string(),
  roles: z.array(z.string()),
  using: z.string().nullable(),
  withCheck: z.string().nullable(),
});
export const triggerInfo = z.object({
  tableName: z.string(),
  triggerName: z.string(),
  functionName: z.string(),
  enabled: z.boolean(),
  definition: z.string(),
});
export const functionInfo = z.object({
  name: z.string(),
  arguments: z.string(),
  returnType: z.string(),
  language: z.string(),
  kind: z.string(),
  definition: z.string(),
});
