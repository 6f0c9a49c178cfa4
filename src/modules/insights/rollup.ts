// The rollup loop: once a minute each server samples its gauges, and whichever server takes the
// advisory lock folds the closed minutes of the logs into logs.insight_rollup, an hour per
// transaction, until it reaches the minutes whose entries may still be in a server's buffer.
// A log row stored after its minute was folded (later than `lateMs`) is not counted by the charts.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { type Sql, withTx } from '../../core/db.js';
import * as repo from './insights.repo.js';
import { KEEP_MS } from './insights.service.js';

const MINUTE_MS = 60_000;
const FOLD_STEP_MS = 60 * MINUTE_MS;
const INTERVAL_MS = MINUTE_MS;

const floorMinute = (ms: number) => new Date(Math.floor(ms / MINUTE_MS) * MINUTE_MS);

export interface RollupOptions {
  sql: Sql;
  clock: Clock;
  /** How late an entry may reach the table after its time (the log writer's flush interval and a margin). */
  lateMs: number;
  /** This server's realtime connections now. */
  connections(): number;
  /** How long close() waits for a round in flight (a database that stopped answering must not hold up a stop). */
  closeWithinMs: number;
  onError(err: unknown): void;
}

export function startRollup(options: RollupOptions) {
  const { sql, clock, lateMs } = options;
  const server = randomUUID();

  /** Folds every closed minute not folded yet; returns the minutes folded (0 when another server holds the fold). */
  async function fold(): Promise<number> {
    const until = floorMinute(clock.now().getTime() - lateMs);
    const oldest = floorMinute(clock.now().getTime() - KEEP_MS);
    let folded = 0;
    for (;;) {
      const step = await withTx(sql, async (tx) => {
        if (!(await repo.claimRollup(tx))) return 0;
        // The first fold starts at the oldest row there is (a new project has nothing to fold).
        const mark = (await repo.rolledUntil(tx)) ?? (await repo.oldestRow(tx, oldest)) ?? until;
        const from = mark > oldest ? floorMinute(mark.getTime()) : oldest;
        if (from >= until) return 0;
        const to = new Date(Math.min(from.getTime() + FOLD_STEP_MS, until.getTime()));
        await repo.foldMinutes(tx, from, to);
        return (to.getTime() - from.getTime()) / MINUTE_MS;
      });
      if (step === 0) return folded;
      folded += step;
    }
  }

  async function tick(): Promise<void> {
    const now = clock.now();
    await repo.sampleGauges(sql, floorMinute(now.getTime()), server, options.connections());
    await fold();
    await repo.pruneBefore(sql, new Date(now.getTime() - KEEP_MS));
  }

  let running: Promise<void> = tick().catch(options.onError);
  const timer = setInterval(() => {
    running = running.then(() => tick().catch(options.onError));
  }, INTERVAL_MS);
  timer.unref();

  return {
    /** One round now (tests, and an admin wanting the newest minutes folded). */
    run(): Promise<void> {
      const round = running.then(tick);
      running = round.catch(options.onError);
      return round;
    },
    fold,
    async close(): Promise<void> {
      clearInterval(timer);
      let bound: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        bound = setTimeout(resolve, options.closeWithinMs);
        bound.unref();
      });
      await Promise.race([running.catch(() => {}), waited]);
      clearTimeout(bound);
    },
  };
}

export type Rollup = ReturnType<typeof startRollup>;
