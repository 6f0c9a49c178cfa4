// The scheduler loop of one server. Each tick claims what is due at the injected clock's time in
// one transaction — due schedules locked FOR UPDATE SKIP LOCKED, their next_run_at advanced and a
// run row (with a lease) inserted before commit — so however many servers tick, a due time fires
// once. The runs then execute outside the transaction and record their outcome. Runs left
// 'running' past their lease (their server stopped) are taken over by the next tick anywhere.
import { withTx, type Queryable } from '../../core/db.js';
import { settlesWithin } from '../../core/settles-within.js';
import type { Deps } from '../../deps.js';
import { nextDueAfterNow, parseTiming } from './cron-expression.js';
import { runLeaseUntil, runScheduleOnce } from './run-once.js';
import * as repo from './schedules.repo.js';
import { RETENTION_DEFAULT_DAYS } from './schedules.schemas.js';

/** A run is tried this many times in all when the servers running it stop before it ends. */
export const MAX_ATTEMPTS = 2;
const PRUNE_EVERY_MS = 60 * 60 * 1000;

type Log = (level: 'info' | 'warn' | 'error', message: string, extra?: Record<string, unknown>) => void;

export interface TickReport {
  /** Runs started for due times. */
  started: number;
  /** Runs taken over from a server that stopped. */
  recovered: number;
  /** Schedules whose missed due times were skipped (policy 'skip'). */
  skipped: number;
}

export interface Scheduler {
  /** Claims and runs what is due now; resolves once those runs are recorded. */
  tick(): Promise<TickReport>;
  /** Ticks every SCHEDULES_POLL_MS (0: never) until stop(). */
  start(): void;
  /** No more claims; waits up to `graceMs` for runs in flight, then stops them (recorded as failed). */
  stop(graceMs?: number): Promise<void>;
}

interface Claim {
  runId: string;
  schedule: repo.ScheduleRow;
}

export function createScheduler(
  deps: Pick<Deps, 'sql' | 'clock' | 'keyring' | 'runtime' | 'config'>,
  log: Log = () => {},
): Scheduler {
  const settings = deps.config.schedules;
  const stopping = new AbortController();
  const inFlight = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  let claiming: Promise<unknown> | null = null;
  let lastPruneAt = Number.NEGATIVE_INFINITY;
  let closed = false;

  const leaseUntil = (s: repo.ScheduleRow, now: Date) => runLeaseUntil(deps, s, now);

  /** Advances one locked due schedule; answers whether its due time fires. */
  async function advance(tx: Queryable, schedule: repo.ScheduleRow, now: Date): Promise<'fire' | 'skip'> {
    const due = schedule.nextRunAt!;
    let next: Date | null = null;
    try {
      next = nextDueAfterNow(parseTiming(schedule.cronSchedule, schedule.timeZone), due, now);
    } catch (err) {
      log('error', 'a stored schedule has a timing that no longer parses; it is not scheduled again', {
        scheduleId: schedule.id,
        err,
      });
    }
    await repo.setNextRun(tx, schedule.id, next);
    const missed = now.getTime() - due.getTime() > settings.missedRunGraceMs;
    return missed && schedule.missedRunPolicy === 'skip' ? 'skip' : 'fire';
  }

  async function claim(capacity: number): Promise<{ claims: Claim[]; report: TickReport }> {
    const report: TickReport = { started: 0, recovered: 0, skipped: 0 };
    const claims: Claim[] = [];
    if (capacity <= 0) return { claims, report };
    const now = deps.clock.now();
    await withTx(deps.sql, async (tx) => {
      for (const schedule of await repo.lockDueSchedules(tx, now, capacity)) {
        if ((await advance(tx, schedule, now)) === 'skip') {
          report.skipped++;
          log('info', 'missed scheduled runs skipped', { scheduleId: schedule.id, dueAt: schedule.nextRunAt });
          continue;
        }
        const runId = await repo.insertRun(tx, {
          scheduleId: schedule.id,
          dueAt: schedule.nextRunAt!,
          startedAt: now,
          leaseUntil: leaseUntil(schedule, now),
        });
        if (runId === undefined) continue;
        claims.push({ runId, schedule });
        report.started++;
      }
      for (const run of await repo.lockAbandonedRuns(tx, now, capacity - claims.length)) {
        if (run.attempt >= MAX_ATTEMPTS) {
          await repo.finishRun(tx, run.id, now, {
            status: 'failed',
            statusCode: 500,
            durationMs: 0,
            message: `Abandoned: the server running it stopped before it ended (${run.attempt} attempts)`,
            excerpt: null,
          });
          continue;
        }
        const schedule = await repo.findSchedule(tx, run.scheduleId);
        if (!schedule) continue;
        await repo.renewRun(tx, run.id, now, leaseUntil(schedule, now));
        claims.push({ runId: run.id, schedule });
        report.recovered++;
      }
    });
    return { claims, report };
  }

  async function execute({ runId, schedule }: Claim): Promise<void> {
    const outcome = await runScheduleOnce(deps, schedule, stopping.signal);
    try {
      await repo.finishRun(deps.sql, runId, deps.clock.now(), outcome);
    } catch (err) {
      // The lease runs out and another tick takes the run over.
      log('error', 'recording a scheduled run failed', { runId, err });
    }
  }

  async function pruneIfDue(): Promise<void> {
    const now = deps.clock.now();
    if (now.getTime() - lastPruneAt < PRUNE_EVERY_MS) return;
    lastPruneAt = now.getTime();
    const days = (await repo.readRetentionDays(deps.sql)) ?? RETENTION_DEFAULT_DAYS;
    if (days === null) return;
    await repo.pruneRuns(deps.sql, new Date(now.getTime() - days * 86_400_000));
  }

  /** Claims, then starts the runs; answers the report and the runs' completion. */
  async function claimAndStart(): Promise<{ report: TickReport; runs: Promise<void>[] }> {
    await pruneIfDue();
    const { claims, report } = await claim(settings.maxConcurrentRuns - inFlight.size);
    const runs = claims.map((c) => {
      const run = execute(c).finally(() => inFlight.delete(run));
      inFlight.add(run);
      return run;
    });
    return { report, runs };
  }

  async function tick(): Promise<TickReport> {
    if (closed) return { started: 0, recovered: 0, skipped: 0 };
    const pending = claimAndStart();
    claiming = pending;
    try {
      const { report, runs } = await pending;
      await Promise.all(runs);
      return report;
    } finally {
      if (claiming === pending) claiming = null;
    }
  }

  return {
    tick,
    start() {
      if (settings.pollMs === 0 || timer !== null || closed) return;
      timer = setInterval(() => {
        if (claiming !== null || closed) return;
        const pending = claimAndStart();
        claiming = pending;
        pending
          .catch((err: unknown) => log('error', 'the scheduler could not claim due runs', { err }))
          .finally(() => {
            if (claiming === pending) claiming = null;
          });
      }, settings.pollMs);
      timer.unref();
    },
    async stop(graceMs = 0) {
      closed = true;
      if (timer !== null) clearInterval(timer);
      timer = null;
      if (!stopping.signal.aborted) {
        // Claims are committed before runs start: let a claim in progress finish first.
        await claiming?.catch(() => {});
        const done = Promise.all(inFlight);
        await settlesWithin(done, graceMs);
        stopping.abort();
        await done;
      }
    },
  };
}
