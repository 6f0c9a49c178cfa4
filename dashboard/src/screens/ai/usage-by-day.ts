// The usage report folded the ways the screen shows it: tokens per UTC day (the chart), per model
// and per caller and day (the tables).
import type { UsageRow } from './types';

/** Sums rows into one total per key, in first-seen order. */
function totalsBy<T>(
  rows: UsageRow[],
  keyOf: (row: UsageRow) => string,
  start: (row: UsageRow) => T,
  add: (total: T, row: UsageRow) => void,
): T[] {
  const totals = new Map<string, T>();
  for (const row of rows) {
    const key = keyOf(row);
    const total = totals.get(key) ?? start(row);
    add(total, row);
    totals.set(key, total);
  }
  return [...totals.values()];
}

export interface DayTotal {
  day: string;
  inputTokens: number;
  outputTokens: number;
}

export function totalsByDay(rows: UsageRow[]): DayTotal[] {
  return totalsBy<DayTotal>(
    rows,
    (row) => row.day,
    (row) => ({ day: row.day, inputTokens: 0, outputTokens: 0 }),
    (total, row) => {
      total.inputTokens += row.inputTokens;
      total.outputTokens += row.outputTokens;
    },
  ).sort((a, b) => a.day.localeCompare(b.day));
}

export interface CallerDay {
  day: string;
  subject: string;
  subjectKind: string;
  requests: number;
  tokens: number;
}

export function totalsByCallerAndDay(rows: UsageRow[]): CallerDay[] {
  return totalsBy<CallerDay>(
    rows,
    (row) => `${row.day}\u0000${row.subject}`,
    (row) => ({ day: row.day, subject: row.subject, subjectKind: row.subjectKind, requests: 0, tokens: 0 }),
    (total, row) => {
      total.requests += row.requests;
      total.tokens += row.inputTokens + row.outputTokens;
    },
  ).sort((a, b) => b.day.localeCompare(a.day) || b.tokens - a.tokens);
}

export interface ModelTotal {
  model: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  callers: number;
}

/** Per model over the report's days, the most tokens first; `callers` counts distinct subjects. */
export function totalsByModel(rows: UsageRow[]): ModelTotal[] {
  const subjects = new Map<string, Set<string>>();
  return totalsBy<ModelTotal>(
    rows,
    (row) => row.model,
    (row) => ({ model: row.model, requests: 0, inputTokens: 0, outputTokens: 0, callers: 0 }),
    (total, row) => {
      total.requests += row.requests;
      total.inputTokens += row.inputTokens;
      total.outputTokens += row.outputTokens;
      const seen = subjects.get(row.model) ?? new Set<string>();
      seen.add(row.subject);
      subjects.set(row.model, seen);
      total.callers = seen.size;
    },
  ).sort((a, b) => b.inputTokens + b.outputTokens - (a.inputTokens + a.outputTokens) || a.model.localeCompare(b.model));
}
