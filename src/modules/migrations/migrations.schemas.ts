// The wire contract of the migrations API (the CLI and the tests import it).
import { z } from 'zod';

export const MIGRATION_VERSION = /^\d{1,64}$/;
export const MIGRATION_NAME = /^[a-z0-9-]+$/;

export const newMigrationBody = z.strictObject({
  version: z.string().regex(MIGRATION_VERSION, 'must be a numeric string of 1 to 64 digits'),
  name: z.string().trim().min(1).max(200).regex(MIGRATION_NAME, 'must use lowercase letters, digits and hyphens only'),
  sql: z.string().trim().min(1, 'must not be empty'),
});

export const appliedMigration = z.object({
  version: z.string(),
  name: z.string(),
  statements: z.array(z.string()),
  createdAt: z.string(),
});
export type AppliedMigration = z.infer<typeof appliedMigration>;

export const migrationHistory = z.object({ migrations: z.array(appliedMigration) });

export const migrationCreated = appliedMigration.extend({ message: z.string() });

export const dryRunBody = z.strictObject({ sql: z.string() });

export const riskFactor = z.object({
  code: z.enum([
    'DESTRUCTIVE_DATA_LOSS',
    'SCHEMA_BREAKING_CHANGE',
    'SYNTAX_OR_EXECUTION_ERROR',
    'EMPTY_SQL',
    'GUARD_VIOLATION',
  ]),
  description: z.string(),
  level: z.enum(['WARNING', 'DANGER']),
  statement: z.string().optional(),
});
export type RiskFactor = z.infer<typeof riskFactor>;

export const dryRunResult = z.object({
  valid: z.boolean(),
  statementCount: z.number().int(),
  statements: z.array(z.string()),
  riskLevel: z.enum(['SAFE', 'WARNING', 'DANGER']),
  riskFactors: z.array(riskFactor),
  error: z.string().optional(),
});
export type DryRunResult = z.infer<typeof dryRunResult>;

export const migrationsForgotten = z.object({ message: z.string(), forgotten: z.number().int() });
