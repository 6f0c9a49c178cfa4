// When scheduled backups fire: five UTC cron fields with a single literal minute (at most hourly,
// as the reference platform allows), parsed by croner. Bad input is a 400 that says how to write it.
import { Cron } from 'croner';
import { AppError } from '../../core/errors.js';

const invalid = (message: string) =>
  new AppError('VALIDATION_ERROR', message, {
    nextActions: 'Use five UTC cron fields with a single minute, e.g. "0 3 * * *" (daily at 03:00) or "15 * * * *".',
  });

/** The next due time after `now`; throws a 400 for an expression a backup schedule cannot use. */
export function nextBackupTime(cronSchedule: string, now: Date): Date {
  const fields = cronSchedule.trim().split(/\s+/);
  if (fields.length !== 5) throw invalid(`cronSchedule must have 5 fields, got ${fields.length}.`);
  if (!/^\d{1,2}$/.test(fields[0] as string) || Number(fields[0]) > 59)
    throw invalid('cronSchedule must name one minute (0-59): backups run at most hourly.');
  let cron: Cron;
  try {
    cron = new Cron(fields.join(' '), { timezone: 'UTC', paused: true });
  } catch (err) {
    throw invalid(`cronSchedule is not a valid cron expression: ${(err as Error).message}`);
  }
  const next = cron.nextRun(now);
  if (!next) throw invalid('cronSchedule never fires.');
  return next;
}
