// When a schedule is due: its cronSchedule is either a seconds interval ("30 seconds", the
// reference platform's pg_cron form, 1-59) or exactly five cron fields evaluated in a time zone
// by croner. Bad input is a 400 SCHEDULE_INVALID_CRON that says how to write it.
import { Cron } from 'croner';
import { AppError } from '../../core/errors.js';

const INTERVAL = /^(\d+)\s+seconds?$/i;
const CRON_HINT =
  'Use five fields "minute hour day-of-month month day-of-week" (e.g. "*/5 * * * *"), or an interval "<n> seconds" with n from 1 to 59.';

export type Timing = { kind: 'interval'; seconds: number } | { kind: 'cron'; cron: Cron };

const invalidCron = (message: string) => new AppError('SCHEDULE_INVALID_CRON', message, { nextActions: CRON_HINT });

function checkTimeZone(timeZone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    throw new AppError('SCHEDULE_INVALID_TIME_ZONE', `Unknown time zone: ${timeZone}`, {
      nextActions: 'Give an IANA time zone name such as "UTC", "Europe/Paris" or "America/New_York".',
    });
  }
}

/** The timing of a stored or submitted schedule; throws a 400 when it cannot fire. */
export function parseTiming(cronSchedule: string, timeZone: string): Timing {
  checkTimeZone(timeZone);
  const expression = cronSchedule.trim();
  const interval = INTERVAL.exec(expression);
  if (interval) {
    const seconds = Number(interval[1]);
    if (seconds < 1 || seconds > 59)
      throw invalidCron(`Interval must be between 1 and 59 seconds, got ${seconds} seconds.`);
    return { kind: 'interval', seconds };
  }
  const fields = expression.split(/\s+/);
  if (fields.length !== 5)
    throw invalidCron(
      `Cron expression must be exactly 5 fields (minute hour day month weekday), got ${fields.length}.`,
    );
  let cron: Cron;
  try {
    cron = new Cron(fields.join(' '), { timezone: timeZone, paused: true });
  } catch (err) {
    throw invalidCron(`Invalid cron expression: ${(err as Error).message}`);
  }
  if (cron.nextRun(new Date()) === null) throw invalidCron(`The cron expression "${expression}" never fires.`);
  return { kind: 'cron', cron };
}

/** The first due time strictly after `after` (null when there is none). */
export function nextDueAfter(timing: Timing, after: Date): Date | null {
  if (timing.kind === 'cron') return timing.cron.nextRun(after);
  return new Date(after.getTime() + timing.seconds * 1000);
}

/**
 * The first due time after `now` in the series that contains `due` (for an interval, the series
 * keeps its phase; a cron expression has one series).
 */
export function nextDueAfterNow(timing: Timing, due: Date, now: Date): Date | null {
  if (timing.kind === 'cron') return timing.cron.nextRun(now);
  const step = timing.seconds * 1000;
  const behind = now.getTime() - due.getTime();
  const steps = behind < 0 ? 1 : Math.floor(behind / step) + 1;
  return new Date(due.getTime() + steps * step);
}
