// The wire contract of MCP usage (reference §8.3): what the MCP server posts after each tool call,
// and the admin's read of the newest records.
import { z } from 'zod';

export const recordUsageBody = z.object({
  tool_name: z.string({ error: 'tool_name is required' }).min(1, 'tool_name is required').max(255),
  success: z.boolean().default(true),
  /** Sent by the MCP server; the server's own clock is recorded instead. */
  timestamp: z.unknown().optional(),
});

export const usageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(5),
  /** "true" (the default) for successful calls; anything else for failed ones. */
  success: z
    .string()
    .optional()
    .transform((v) => v === undefined || v === 'true'),
});

export const usageRecord = z.object({ tool_name: z.string(), success: z.boolean(), created_at: z.string() });
export const usageList = z.object({ records: z.array(usageRecord) });
export type UsageRecord = z.infer<typeof usageRecord>;
