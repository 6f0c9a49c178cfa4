// The wire contract of the functions management API (api-contract.md §5.1).
import { z } from 'zod';

export const SLUG = /^[a-zA-Z0-9_-]+$/;
/** Slugs that would collide with the runtime's own routes, or with Supabase's path /functions/v1/{slug}. */
export const RESERVED_SLUGS = new Set(['health', 'v1']);

const slug = z.string().min(1).max(255).regex(SLUG, 'must match ^[a-zA-Z0-9_-]+$');
const status = z.enum(['draft', 'active']);

export const slugParams = z.object({ slug: z.string().min(1).max(255) });

export const createFunctionBody = z.strictObject({
  name: z.string().min(1).max(255),
  slug: slug.optional(),
  code: z.string().min(1),
  description: z.string().nullable().optional(),
  status: status.default('active'),
  verifyJwt: z.boolean().default(true),
});

export const updateFunctionBody = z.strictObject({
  name: z.string().min(1).max(255).optional(),
  code: z.string().min(1).optional(),
  description: z.string().nullable().optional(),
  status: status.optional(),
  verifyJwt: z.boolean().optional(),
});

export const functionSummary = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  status: z.enum(['draft', 'active', 'error']),
  verifyJwt: z.boolean(),
  version: z.number(),
  createdAt: z.date(),
  updatedAt: z.date(),
  deployedAt: z.date().nullable(),
});

export const functionDetail = functionSummary.extend({ code: z.string() });

export const deployment = z
  .object({
    id: z.string(),
    status: z.enum(['success', 'failed', 'pending']),
    url: z.string().nullable(),
    buildLogs: z.array(z.string()).optional(),
  })
  .nullable();

export const listResponse = z.object({
  functions: z.array(functionSummary),
  runtime: z.object({ status: z.enum(['running', 'unavailable']) }),
  deploymentUrl: z.string().nullable(),
});

export const writeResponse = z.object({ success: z.boolean(), function: functionDetail, deployment });
export const deleteResponse = z.object({ success: z.boolean(), message: z.string() });
