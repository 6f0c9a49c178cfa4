// SQL for schedules.schedules, schedules.runs (run history and leases) and schedules.config.
import type postgres from 'postgres';
import type { Queryable } from '../../core/db.js';

export interface ScheduleRow {
  id: string;
  jobId: string;
  name: string;
  cronSchedule: string;
  timeZone: string;
  functionSlug: string | null;
  functionUrl: string | null;
  httpMethod: string;
  headers: Record<string, string> | null;
  body: Record<string, unknown> | string | null;
  isActive: boolean;
  missedRunPolicy: 'skip' | 'run_once';
  timeoutMs: number | null;
  nextRunAt: Date | null;
  lastExecutedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type ScheduleFields = Omit<ScheduleRow, 'id' | 'jobId' | 'lastExecutedAt' | 'createdAt'>;

const COLUMNS = `id, job_id::text as "jobId", name, cron_schedule as "cronSchedule", time_zone as "timeZone",
  function_slug as "functionSlug", function_url as "functionUrl", http_method as "httpMethod", headers, body,
  is_active as "isActive", missed_run_policy as "missedRunPolicy", timeout_ms as "timeoutMs",
  next_run_at as "nextRunAt", last_executed_at as "lastExecutedAt", created_at as "createdAt",
  updated_at as "updatedAt"`;

export async function listSchedules(db: Queryable): Promise<ScheduleRow[]> {
  return db.unsafe<ScheduleRow[]>(`select ${COLUMNS} from schedules.schedules order by created_at desc, id desc`);
}

export async function findSchedule(db: Queryable, id: string, lock = false): Promise<ScheduleRow | undefined> {
  const [row] = await db.unsafe<ScheduleRow[]>(
    `select ${COLUMNS} from schedules.schedules where id = $1${lock ? ' for update' : ''}`,
    [id],
  );
  return row;
}

export async function insertSchedule(db: Queryable, fields: ScheduleFields): Promise<ScheduleRow> {
  const [row] = await db.unsafe<ScheduleRow[]>(
    `insert into schedules.schedules (name, cron_schedule, time_zone, function_slug, function_url, http_method,
       headers, body, is_active, missed_run_policy, timeout_ms, next_run_at, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13)
     returning ${COLUMNS}`,
    [...fieldValues(fields), fields.updatedAt],
  );
  return row!;
}

export async function updateSchedule(db: Queryable, id: string, fields: ScheduleFields): Promise<void> {
  await db.unsafe(
    `update schedules.schedules set name = $1, cron_schedule = $2, time_zone = $3, function_slug = $4,
       function_url = $5, http_method = $6, headers = $7, body = $8, is_active = $9, missed_run_policy = $10,
       timeout_ms = $11, next_run_at = $12, updated_at = $13
     where id = $14`,
    [...fieldValues(fields), fields.updatedAt, id],
  );
}

/** Parameters $1-$12 of insert and update, in column order. */
function fieldValues(f: ScheduleFields): postgres.ParameterOrJSON<never>[] {
  return [
    f.name,
    f.cronSchedule,
    f.timeZone,
    f.functionSlug,
    f.functionUrl,
    f.httpMethod,
    // jsonb parameters: postgres.js serializes them by the column's type.
    f.headers,
    f.body as postgres.JSONValue,
    f.isActive,
    f.missedRunPolicy,
    f.timeoutMs,
    f.nextRunAt,
  ];
}

export async function deleteSchedule(db: Queryable, id: string): Promise<boolean> {
  const rows = await db`delete from schedules.schedules where id = ${id} returning id`;
  return rows.length > 0;
}

// ---------------------------------------------------------------------------------------------
// Claiming due runs

/** Active schedules due at `now`, locked; rows another server holds are skipped, not waited for. */
export async function lockDueSchedules(db: Queryable, now: Date, limit: number): Promise<ScheduleRow[]> {
  return db.unsafe<ScheduleRow[]>(
    `select ${COLUMNS} from schedules.schedules
     where is_active and next_run_at <= $1
     order by next_run_at limit $2
     for update skip locked`,
    [now, limit],
  );
}

export async function setNextRun(db: Queryable, id: string, nextRunAt: Date | null): Promise<void> {
  await db`update schedules.schedules set next_run_at = ${nextRunAt} where id = ${id}`;
}

/** Records the start of a run; undefined when this due time already has one. */
export async function insertRun(
  db: Queryable,
  run: { scheduleId: string; dueAt: Date; startedAt: Date; leaseUntil: Date },
): Promise<string | undefined> {
  const [row] = await db<{ id: string }[]>`
    insert into schedules.runs (schedule_id, due_at, started_at, lease_until, status)
    values (${run.scheduleId}, ${run.dueAt}, ${run.startedAt}, ${run.leaseUntil}, 'running')
    on conflict (schedule_id, due_at) do nothing
    returning id`;
  return row?.id;
}

export interface AbandonedRun {
  id: string;
  scheduleId: string;
  attempt: number;
}

/** Runs whose server stopped before finishing them (lease over), locked for this server. */
export async function lockAbandonedRuns(db: Queryable, now: Date, limit: number): Promise<AbandonedRun[]> {
  return db<AbandonedRun[]>`
    select id, schedule_id as "scheduleId", attempt from schedules.runs
    where status = 'running' and lease_until <= ${now}
    order by lease_until limit ${limit}
    for update skip locked`;
}

export async function renewRun(db: Queryable, id: string, startedAt: Date, leaseUntil: Date): Promise<void> {
  await db`
    update schedules.runs set attempt = attempt + 1, started_at = ${startedAt}, lease_until = ${leaseUntil}
    where id = ${id}`;
}

export interface RunOutcome {
  status: 'success' | 'failed' | 'timed_out';
  statusCode: number;
  durationMs: number;
  message: string;
  excerpt: string | null;
}

/** Records how a run ended (only while it is still this server's: running). */
export async function finishRun(db: Queryable, id: string, finishedAt: Date, outcome: RunOutcome): Promise<void> {
  await db`
    with finished as (
      update schedules.runs set status = ${outcome.status}, status_code = ${outcome.statusCode},
        duration_ms = ${outcome.durationMs}, message = ${outcome.message}, excerpt = ${outcome.excerpt},
        finished_at = ${finishedAt}, lease_until = null
      where id = ${id} and status = 'running'
      returning schedule_id, started_at
    )
    update schedules.schedules s set last_executed_at = greatest(s.last_executed_at, f.started_at)
    from finished f where s.id = f.schedule_id`;
}

// ---------------------------------------------------------------------------------------------
// History and retention

export interface RunRow {
  id: string;
  scheduleId: string;
  dueAt: Date;
  startedAt: Date;
  attempt: number;
  status: 'running' | 'success' | 'failed' | 'timed_out';
  statusCode: number | null;
  durationMs: number | null;
  message: string | null;
  excerpt: string | null;
}

export async function listRuns(db: Queryable, scheduleId: string, limit: number, offset: number): Promise<RunRow[]> {
  return db<RunRow[]>`
    select id, schedule_id as "scheduleId", due_at as "dueAt", started_at as "startedAt", attempt, status,
      status_code as "statusCode", duration_ms as "durationMs", message, excerpt
    from schedules.runs where schedule_id = ${scheduleId}
    order by started_at desc, id desc limit ${limit} offset ${offset}`;
}

export async function countRuns(db: Queryable, scheduleId: string): Promise<number> {
  const [row] = await db<
    { n: number }[]
  >`select count(*)::int as n from schedules.runs where schedule_id = ${scheduleId}`;
  return row!.n;
}

/** Finished runs that started before `before`; answers how many went. */
export async function pruneRuns(db: Queryable, before: Date): Promise<number> {
  const rows = await db`delete from schedules.runs where started_at < ${before} and status <> 'running' returning 1`;
  return rows.length;
}

/** The stored retention: undefined without a row (the default applies), null = keep everything. */
export async function readRetentionDays(db: Queryable): Promise<number | null | undefined> {
  const [row] = await db<{ retentionDays: number | null }[]>`
    select retention_days as "retentionDays" from schedules.config`;
  return row ? row.retentionDays : undefined;
}

export async function writeRetentionDays(db: Queryable, days: number | null, now: Date): Promise<void> {
  await db`
    insert into schedules.config (retention_days, updated_at) values (${days}, ${now})
    on conflict (singleton) do update set retention_days = excluded.retention_days, updated_at = excluded.updated_at`;
}
