// Schedules as the admin manages them: create, list, read, update (including pause and resume),
// delete, the run history and its retention. Timing and target (under the outbound address policy)
// are checked when saved; header secrets must exist when saved and are resolved only when a run starts.
import { withTx } from '../../core/db.js';
import { AppError } from '../../core/errors.js';
import { allowedOutboundOrigins, assertOutboundUrl } from '../../platform/outbound-http.js';
import type { Deps } from '../../deps.js';
import { nextDueAfter, parseTiming } from './cron-expression.js';
import { checkHeaderSecrets } from './header-secrets.js';
import { type RunOnceDeps, runLeaseUntil, runScheduleOnce } from './run-once.js';
import * as repo from './schedules.repo.js';
import {
  type CreateSchedule,
  RETENTION_DEFAULT_DAYS,
  type RunLogView,
  type ScheduleView,
  type UpdateSchedule,
} from './schedules.schemas.js';

const FUNCTION_PATH = /^\/functions\/([a-zA-Z0-9_-]+)\/?$/;

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

const notFound = () =>
  new AppError('SCHEDULE_NOT_FOUND', 'Schedule not found.', {
    nextActions: 'List the schedules with GET /api/schedules.',
  });

export function createSchedulesService(deps: RunOnceDeps & Pick<Deps, 'clock'>) {
  const base = new URL(deps.config.apiBaseUrl);
  const basePath = base.pathname.replace(/\/$/, '');

  /**
   * Where runs go: a function by slug, or any http(s) URL the outbound address policy allows (as
   * the reference, which schedules any URL; loopback, private and link-local addresses only when
   * OUTBOUND_ALLOWED_ORIGINS lists them). A function's URL on this API means the function.
   */
  function target(input: { functionUrl?: string; functionSlug?: string }) {
    if (input.functionSlug !== undefined) return { functionSlug: input.functionSlug, functionUrl: null };
    assertOutboundUrl(input.functionUrl!, 'functionUrl', allowedOutboundOrigins(deps.config));
    const url = new URL(input.functionUrl!);
    if (url.origin !== base.origin) return { functionSlug: null, functionUrl: url.toString() };
    const path = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname;
    const fn = url.search === '' ? FUNCTION_PATH.exec(path) : null;
    return fn ? { functionSlug: fn[1]!, functionUrl: null } : { functionSlug: null, functionUrl: url.toString() };
  }

  function viewOf(row: repo.ScheduleRow): ScheduleView {
    return {
      id: row.id,
      name: row.name,
      cronSchedule: row.cronSchedule,
      timeZone: row.timeZone,
      functionUrl: row.functionUrl ?? `${deps.config.apiBaseUrl}/functions/${row.functionSlug}`,
      functionSlug: row.functionSlug,
      httpMethod: row.httpMethod as ScheduleView['httpMethod'],
      headers: row.headers,
      body: row.body,
      isActive: row.isActive,
      cronJobId: row.isActive ? row.jobId : null,
      missedRunPolicy: row.missedRunPolicy,
      timeoutMs: row.timeoutMs,
      lastExecutedAt: iso(row.lastExecutedAt),
      nextRun: iso(row.nextRunAt),
      createdAt: row.createdAt.toISOString(),
      updatedAt: row.updatedAt.toISOString(),
    };
  }

  const runViewOf = (run: repo.RunRow): RunLogView => ({
    id: run.id,
    scheduleId: run.scheduleId,
    executedAt: run.startedAt.toISOString(),
    dueAt: run.dueAt.toISOString(),
    status: run.status,
    statusCode: run.statusCode,
    success: run.status === 'success',
    durationMs: run.durationMs,
    message: run.message,
    excerpt: run.excerpt,
    attempt: run.attempt,
  });

  /** The first due time after now of an active schedule (checks the timing: 400 when bad). */
  const firstDue = (cronSchedule: string, timeZone: string, now: Date) =>
    nextDueAfter(parseTiming(cronSchedule, timeZone), now);

  return {
    async list(): Promise<ScheduleView[]> {
      return (await repo.listSchedules(deps.sql)).map(viewOf);
    },

    async get(id: string): Promise<ScheduleView> {
      const row = await repo.findSchedule(deps.sql, id);
      if (!row) throw notFound();
      return viewOf(row);
    },

    async create(input: CreateSchedule): Promise<{ id: string; cronJobId: string; message: string }> {
      const now = deps.clock.now();
      const timeZone = input.timeZone ?? 'UTC';
      const nextRunAt = firstDue(input.cronSchedule, timeZone, now);
      const to = target(input);
      await checkHeaderSecrets(deps.sql, input.headers ?? null);
      const row = await repo.insertSchedule(deps.sql, {
        name: input.name,
        cronSchedule: input.cronSchedule,
        timeZone,
        ...to,
        httpMethod: input.httpMethod,
        headers: input.headers ?? null,
        body: input.body ?? null,
        isActive: true,
        missedRunPolicy: input.missedRunPolicy ?? 'skip',
        timeoutMs: input.timeoutMs ?? null,
        nextRunAt,
        updatedAt: now,
      });
      return { id: row.id, cronJobId: row.jobId, message: 'Schedule created successfully' };
    },

    /**
     * As the reference: a change to anything but isActive reschedules from now (and re-activates
     * a paused schedule); isActive alone pauses (no next run) or resumes (next due time from now).
     */
    async update(
      id: string,
      input: UpdateSchedule,
    ): Promise<{ id: string; cronJobId: string | null; message: string }> {
      return withTx(deps.sql, async (tx) => {
        const row = await repo.findSchedule(tx, id, true);
        if (!row) throw notFound();
        const now = deps.clock.now();
        const { isActive, ...changes } = input;
        const pureToggle = Object.values(changes).every((v) => v === undefined);
        const merged: repo.ScheduleFields = {
          name: changes.name ?? row.name,
          cronSchedule: changes.cronSchedule ?? row.cronSchedule,
          timeZone: changes.timeZone ?? row.timeZone,
          ...(changes.functionSlug !== undefined || changes.functionUrl !== undefined
            ? target(changes)
            : { functionSlug: row.functionSlug, functionUrl: row.functionUrl }),
          httpMethod: changes.httpMethod ?? row.httpMethod,
          headers: changes.headers === undefined ? row.headers : changes.headers,
          body: changes.body === undefined ? row.body : changes.body,
          isActive: pureToggle ? (isActive ?? row.isActive) : (isActive ?? true),
          missedRunPolicy: changes.missedRunPolicy ?? row.missedRunPolicy,
          timeoutMs: changes.timeoutMs === undefined ? row.timeoutMs : changes.timeoutMs,
          nextRunAt: row.nextRunAt,
          updatedAt: now,
        };
        const timing = parseTiming(merged.cronSchedule, merged.timeZone);
        if (!merged.isActive) merged.nextRunAt = null;
        else if (!pureToggle || !row.isActive) merged.nextRunAt = nextDueAfter(timing, now);
        if (!pureToggle) await checkHeaderSecrets(tx, merged.headers);
        await repo.updateSchedule(tx, id, merged);
        const activeForReply = pureToggle ? row.isActive : merged.isActive;
        return { id, cronJobId: activeForReply ? row.jobId : null, message: 'Schedule updated successfully' };
      });
    },

    async remove(id: string): Promise<{ message: string }> {
      if (!(await repo.deleteSchedule(deps.sql, id))) throw notFound();
      return { message: 'Schedule deleted successfully.' };
    },

    /** The run history, newest first (an unknown id has none, as the reference answers). */
    async logs(id: string, page: { limit: number; offset: number }) {
      const [runs, totalCount] = await Promise.all([
        repo.listRuns(deps.sql, id, page.limit, page.offset),
        repo.countRuns(deps.sql, id),
      ]);
      return { logs: runs.map(runViewOf), totalCount, ...page };
    },

    /** The next `count` due times of a timing from now (checks it: 400 when bad). */
    previewRuns(cronSchedule: string, timeZone: string, count: number): { nextRuns: string[] } {
      const timing = parseTiming(cronSchedule, timeZone);
      const nextRuns: string[] = [];
      let after: Date | null = deps.clock.now();
      while (nextRuns.length < count && after !== null) {
        after = nextDueAfter(timing, after);
        if (after !== null) nextRuns.push(after.toISOString());
      }
      return { nextRuns };
    },

    /**
     * Runs a schedule now, outside its timing (paused or not): the run is recorded in the history
     * like a due one, and the answer is that run once it ended.
     */
    async runNow(id: string, stop: AbortSignal): Promise<RunLogView> {
      const schedule = await repo.findSchedule(deps.sql, id);
      if (!schedule) throw notFound();
      const now = deps.clock.now();
      const runId = await repo.insertRun(deps.sql, {
        scheduleId: id,
        dueAt: now,
        startedAt: now,
        leaseUntil: runLeaseUntil(deps, schedule, now),
      });
      if (runId === undefined)
        throw new AppError('CONFLICT', 'This schedule already has a run that started at this instant.', {
          nextActions: `Wait for it to end, then see it with GET /api/schedules/${id}/logs.`,
        });
      const outcome = await runScheduleOnce(deps, schedule, stop);
      await repo.finishRun(deps.sql, runId, deps.clock.now(), outcome);
      return runViewOf({ id: runId, scheduleId: id, dueAt: now, startedAt: now, attempt: 1, ...outcome });
    },

    async config(): Promise<{ retentionDays: number | null }> {
      const stored = await repo.readRetentionDays(deps.sql);
      return { retentionDays: stored === undefined ? RETENTION_DEFAULT_DAYS : stored };
    },

    async updateConfig(input: { retentionDays: number | null }): Promise<{ message: string }> {
      await repo.writeRetentionDays(deps.sql, input.retentionDays, deps.clock.now());
      return { message: 'Schedules config updated successfully' };
    },
  };
}

export type SchedulesService = ReturnType<typeof createSchedulesService>;
