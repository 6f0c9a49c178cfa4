// Daily partition names and bounds: logs.entries_<source>_<yyyymmdd> holds [day, day + 1) UTC.
import type { LogSource } from './log-entry.js';

const DAY_MS = 86_400_000;

/** Midnight UTC of the day `at` falls in. */
export const dayOf = (at: Date): Date => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);

export const addDays = (day: Date, days: number): Date => new Date(day.getTime() + days * DAY_MS);

const stamp = (day: Date): string => day.toISOString().slice(0, 10).replaceAll('-', '');

export const partitionName = (source: LogSource, day: Date): string => `entries_${source}_${stamp(day)}`;

/** The day a partition name holds, or null for a name that is not a daily partition. */
export function dayOfPartition(name: string): Date | null {
  const match = /_(\d{4})(\d{2})(\d{2})$/.exec(name);
  return match ? new Date(`${match[1]}-${match[2]}-${match[3]}T00:00:00.000Z`) : null;
}

/**
 * Kinds whose partitions are UNLOGGED: no WAL per row (the highest-volume kind, one row per
 * request). The price: PostgreSQL empties them after a crash (not after a clean stop) and they are
 * not replicated; the stdout line of each request stays. Audit, errors and functions stay logged.
 */
export const isUnlogged = (source: LogSource): boolean => source === 'requests';

/**
 * Rows a partition gains before autovacuum analyzes it again (plus 10 % of its rows, PostgreSQL's
 * default scale). With the default 50, a partition filling at a steady rate was analyzed every
 * autovacuum round (each minute) until 10 % of it outgrew a minute's entries: an ANALYZE samples
 * 30,000 rows and cost ~180 ms of PostgreSQL CPU, as much as COPYing ~30,000 entries. Searches read
 * a time range newest first, a plan that needs no column statistics.
 */
export const ANALYZE_THRESHOLD_ROWS = 100_000;
