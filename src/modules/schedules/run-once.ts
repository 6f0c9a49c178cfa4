// One run of a stored schedule, from its row to the outcome the history records: the header
// secrets resolved, then the target called within the run's timeout. It never throws.
import { allowedOutboundOrigins } from '../../platform/outbound-http.js';
import type { Deps } from '../../deps.js';
import { resolveHeaders } from './header-secrets.js';
import { runTarget } from './run-target.js';
import type { RunOutcome, ScheduleRow } from './schedules.repo.js';

export type RunOnceDeps = Pick<Deps, 'sql' | 'keyring' | 'runtime' | 'config'>;

/** Beyond the run's timeout, how long its server has to record the outcome before the lease ends. */
const LEASE_MARGIN_MS = 30_000;

/** How long a run of this schedule may take. */
export const runTimeoutOf = (deps: Pick<Deps, 'config'>, schedule: ScheduleRow) =>
  schedule.timeoutMs ?? deps.config.schedules.runTimeoutMs;

/** Until when a run started at `now` is its server's (then another tick may take it over). */
export const runLeaseUntil = (deps: Pick<Deps, 'config'>, schedule: ScheduleRow, now: Date) =>
  new Date(now.getTime() + runTimeoutOf(deps, schedule) + LEASE_MARGIN_MS);

export async function runScheduleOnce(
  deps: RunOnceDeps,
  schedule: ScheduleRow,
  stop: AbortSignal,
): Promise<RunOutcome> {
  try {
    return await runTarget(
      {
        sql: deps.sql,
        runtime: deps.runtime,
        apiBaseUrl: deps.config.apiBaseUrl,
        allowedOrigins: allowedOutboundOrigins(deps.config),
      },
      {
        functionSlug: schedule.functionSlug,
        functionUrl: schedule.functionUrl,
        method: schedule.httpMethod,
        headers: await resolveHeaders(deps.sql, deps.keyring, schedule.headers),
        body: schedule.body,
        timeoutMs: runTimeoutOf(deps, schedule),
        stop,
      },
    );
  } catch (err) {
    // Resolving the headers failed (a secret is gone, or the database is unreachable).
    return { status: 'failed', statusCode: 500, durationMs: 0, message: (err as Error).message, excerpt: null };
  }
}
