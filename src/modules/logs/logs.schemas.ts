// The wire contract of logs and audit (reference platform §6: /api/logs), with Plinth's search
// filters (time range, level, source, function slug, status, user, request id, text), the live
// tail and the per-kind retention.
import { z } from 'zod';
import { LOG_SOURCES } from './log-entry.js';

/** Non-numeric or absent: the default (the reference ignores bad numbers rather than failing). */
const count = (fallback: number, max: number) =>
  z
    .string()
    .optional()
    .transform((v) => {
      const n = v === undefined ? Number.NaN : Number.parseInt(v, 10);
      return Number.isFinite(n) && n >= 0 ? Math.min(n, max) : fallback;
    });

const date = z.iso
  .datetime({ offset: true })
  .or(z.iso.date())
  .transform((v) => new Date(v));

export const searchQuerySchema = z.object({
  q: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe('Case-insensitive text in the message or details, or part of a request id or user id'),
  source: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('requests, functions, audit, errors (or insforge.logs, function.logs)'),
  slug: z.string().min(1).max(255).optional().describe('Function slug (functions entries)'),
  level: z.enum(['info', 'warn', 'error']).optional(),
  status: z.coerce.number().int().min(100).max(599).optional(),
  user_id: z.string().min(1).max(255).optional(),
  request_id: z.string().min(1).max(255).optional(),
  exclude_console: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .describe("true: leave out the web console's own requests (/dashboard, its files and the / redirect)"),
  start_date: date.optional().describe('ISO time or date; inclusive'),
  end_date: date.optional().describe('ISO time or date; inclusive'),
  limit: count(100, 1000),
  offset: count(0, 1_000_000),
});

/** The reference reads audits `limit=0` as "no limit": as many as a count reaches (10,000). */
const AUDITS_UNLIMITED = 10_000;

export const auditsQuerySchema = z.object({
  actor: z.string().min(1).max(255).optional(),
  action: z.string().min(1).max(500).optional(),
  module: z.string().min(1).max(100).optional(),
  start_date: date.optional(),
  end_date: date.optional(),
  limit: count(100, 1000).transform((n) => (n === 0 ? AUDITS_UNLIMITED : n)),
  offset: count(0, 1_000_000),
});

export const sourceParamsSchema = z.object({ source: z.string().min(1).max(100) });

export const sourceQuerySchema = z.object({
  limit: count(100, 1000),
  before_timestamp: date.optional(),
});

export const streamQuerySchema = z.object({
  source: z.string().min(1).max(100).optional(),
  slug: z.string().min(1).max(255).optional(),
  level: z.enum(['info', 'warn', 'error']).optional(),
});

/** The stored entry itself: the `body` of a search result. */
export const entryBodySchema = z.object({
  id: z.string(),
  timestamp: z.string(),
  source: z.enum(LOG_SOURCES),
  level: z.string(),
  method: z.string().nullable(),
  route: z.string().nullable(),
  status: z.number().nullable(),
  durationMs: z.number().nullable(),
  principal: z.string().nullable(),
  userId: z.string().nullable(),
  ip: z.string().nullable(),
  requestId: z.string().nullable(),
  slug: z.string().nullable(),
  message: z.string(),
  details: z.record(z.string(), z.unknown()).nullable(),
});

export const searchResultSchema = z.object({
  id: z.string(),
  timestamp: z.string(),
  eventMessage: z.string(),
  body: entryBodySchema,
  source: z.string(),
});

export const sourceLogsSchema = z.object({
  logs: z.array(searchResultSchema.omit({ source: true })),
  total: z.number().int(),
});

export const auditSchema = z.object({
  id: z.string(),
  actor: z.string(),
  action: z.string(),
  module: z.string(),
  details: z.record(z.string(), z.unknown()).nullable(),
  ipAddress: z.string().nullable(),
  requestId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const days = z.number().int().min(1).max(3650);
export const retentionSchema = z.object({ requests: days, functions: days, audit: days, errors: days });
export const retentionUpdateSchema = retentionSchema.partial().strict();

export const statsSchema = z.object({ droppedEntries: z.number().int() });

export const auditStatsQuerySchema = z.object({ days: count(7, 3650).describe('The last this many days (default 7)') });

export const auditStatsSchema = z.object({
  totalLogs: z.number().int(),
  uniqueActors: z.number().int(),
  uniqueModules: z.number().int(),
  actionsByModule: z.record(z.string(), z.number().int()),
  recentActivity: z.array(auditSchema),
});

export const logSourceSchema = z.object({ id: z.string(), name: z.string(), token: z.string() });
