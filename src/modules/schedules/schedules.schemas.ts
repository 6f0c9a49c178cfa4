// The wire contract of schedules (reference platform §5: /api/schedules), with Plinth's
// additions: a function slug as target, a time zone, the missed-run policy and a run timeout.
import { z } from 'zod';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export const MISSED_RUN_POLICIES = ['skip', 'run_once'] as const;
/** Days of run history kept while the admin has not chosen (GET /api/schedules/config). */
export const RETENTION_DEFAULT_DAYS = 7;
export const RUN_STATUSES = ['running', 'success', 'failed', 'timed_out'] as const;

const headers = z
  .record(z.string().min(1).max(256), z.string().max(8192))
  .refine((h) => Object.keys(h).length <= 50, { error: 'has more than 50 headers' });
const body = z.union([z.record(z.string(), z.unknown()), z.string().max(1_000_000)]);

/** What a schedule's name is: newcomers missed that it is required (issue 39). */
const NAME_RULE = 'a label of 3 to 255 characters for people (not unique; the id addresses the schedule)';

const scheduleFields = {
  name: z
    .string({ error: (issue) => (issue.input === undefined ? `is required: ${NAME_RULE}` : 'must be a string') })
    .trim()
    .min(3, { error: 'must be at least 3 characters' })
    .max(255),
  /** Five cron fields, or "<n> seconds" (1-59). */
  cronSchedule: z.string().trim().min(1).max(200),
  /** IANA zone the cron fields are read in (default UTC). */
  timeZone: z.string().trim().min(1).max(100),
  /** Any http(s) URL the outbound address policy allows (a function's URL on this API invokes the function). */
  functionUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048),
  /** The function to invoke (instead of functionUrl). */
  functionSlug: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[a-zA-Z0-9_-]+$/, 'must match ^[a-zA-Z0-9_-]+$'),
  httpMethod: z.enum(HTTP_METHODS),
  /** Values may contain ${{secrets.KEY}}, resolved when each run starts. */
  headers,
  body,
  /** What a server does with due times missed while no server ran: fire once, or skip them. */
  missedRunPolicy: z.enum(MISSED_RUN_POLICIES),
  /** How long a run may take before it is recorded as timed out (default SCHEDULES_RUN_TIMEOUT_MS). */
  timeoutMs: z.number().int().min(100).max(3_600_000),
};

const oneTarget = (s: { functionUrl?: string; functionSlug?: string }) =>
  !(s.functionUrl !== undefined && s.functionSlug !== undefined);

export const createScheduleSchema = z
  .object({
    name: scheduleFields.name.describe(
      'Required. A label for people: 3 to 255 characters (trimmed), not unique; the id addresses the schedule (`plinth schedules` also takes a name that only one schedule has). Shown in the dashboard, `plinth schedules list` and the run history.',
    ),
    cronSchedule: scheduleFields.cronSchedule.describe(
      'Required. Five cron fields read in timeZone (e.g. "0 9 * * 1-5"), or "<n> seconds" (1-59).',
    ),
    timeZone: scheduleFields.timeZone.optional().describe('IANA time zone of the cron fields (default UTC).'),
    functionUrl: scheduleFields.functionUrl
      .optional()
      .describe('The http(s) URL each run calls (give this or functionSlug, not both).'),
    functionSlug: scheduleFields.functionSlug
      .optional()
      .describe('The function each run invokes (give this or functionUrl, not both).'),
    httpMethod: scheduleFields.httpMethod.default('POST'),
    headers: scheduleFields.headers.nullish(),
    body: scheduleFields.body.nullish(),
    missedRunPolicy: scheduleFields.missedRunPolicy.optional(),
    timeoutMs: scheduleFields.timeoutMs.nullish(),
  })
  .refine((s) => s.functionUrl !== undefined || s.functionSlug !== undefined, {
    error: 'give functionUrl or functionSlug',
    path: ['functionUrl'],
  })
  .refine(oneTarget, { error: 'give functionUrl or functionSlug, not both', path: ['functionSlug'] });
export type CreateSchedule = z.output<typeof createScheduleSchema>;

export const updateScheduleSchema = z
  .object({
    name: scheduleFields.name.optional().describe(`A new name: ${NAME_RULE}.`),
    cronSchedule: scheduleFields.cronSchedule.optional(),
    timeZone: scheduleFields.timeZone.optional(),
    functionUrl: scheduleFields.functionUrl.optional(),
    functionSlug: scheduleFields.functionSlug.optional(),
    httpMethod: scheduleFields.httpMethod.optional(),
    headers: scheduleFields.headers.nullish(),
    body: scheduleFields.body.nullish(),
    missedRunPolicy: scheduleFields.missedRunPolicy.optional(),
    timeoutMs: scheduleFields.timeoutMs.nullish(),
    isActive: z.boolean().optional(),
  })
  .refine(oneTarget, { error: 'give functionUrl or functionSlug, not both', path: ['functionSlug'] });
export type UpdateSchedule = z.output<typeof updateScheduleSchema>;

export const scheduleSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  cronSchedule: z.string(),
  timeZone: z.string(),
  functionUrl: z.string(),
  functionSlug: z.string().nullable(),
  httpMethod: z.enum(HTTP_METHODS),
  /** The templates as given (secrets never resolved here). */
  headers: z.record(z.string(), z.string()).nullable(),
  body: z.union([z.record(z.string(), z.unknown()), z.string()]).nullable(),
  isActive: z.boolean(),
  cronJobId: z.string().nullable(),
  missedRunPolicy: z.enum(MISSED_RUN_POLICIES),
  timeoutMs: z.number().int().nullable(),
  lastExecutedAt: z.string().nullable(),
  nextRun: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type ScheduleView = z.output<typeof scheduleSchema>;

export const scheduleIdParamsSchema = z.object({ id: z.uuid({ error: 'must be a schedule id (uuid)' }) });

export const createdScheduleSchema = z.object({ id: z.uuid(), cronJobId: z.string(), message: z.string() });
export const updatedScheduleSchema = z.object({ id: z.uuid(), cronJobId: z.string().nullable(), message: z.string() });
export const messageSchema = z.object({ message: z.string() });

/** A whole-number query parameter: junk falls back to the default, the rest is clamped (as the reference). */
const clampedInt = (fallback: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((v) => {
      const n = Number.parseInt(v ?? '', 10);
      return Number.isNaN(n) ? fallback : Math.min(max, Math.max(min, n));
    });

export const logsQuerySchema = z.object({
  limit: clampedInt(50, 1, 100),
  offset: clampedInt(0, 0, Number.MAX_SAFE_INTEGER),
});

export const runLogSchema = z.object({
  id: z.uuid(),
  scheduleId: z.uuid(),
  /** When the run started. */
  executedAt: z.string(),
  /** The due time it fired for. */
  dueAt: z.string(),
  status: z.enum(RUN_STATUSES),
  /** The answer's status (504 timed out, 500 no answer); null while running. */
  statusCode: z.number().int().nullable(),
  success: z.boolean(),
  durationMs: z.number().int().nullable(),
  message: z.string().nullable(),
  /** The first characters of the answer's body. */
  excerpt: z.string().nullable(),
  attempt: z.number().int(),
});
export type RunLogView = z.output<typeof runLogSchema>;

export const runLogsSchema = z.object({
  logs: z.array(runLogSchema),
  totalCount: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const schedulesConfigSchema = z.object({ retentionDays: z.number().int().nullable() });
export const schedulesConfigUpdateSchema = z.object({ retentionDays: z.number().int().positive().nullable() });

export const previewQuerySchema = z.object({
  cronSchedule: scheduleFields.cronSchedule,
  timeZone: scheduleFields.timeZone.default('UTC'),
  count: z.coerce.number().int().min(1).max(20).default(5),
});
export const previewSchema = z.object({ nextRuns: z.array(z.string()) });
