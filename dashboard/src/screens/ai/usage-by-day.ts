// The usage report folded the two ways the screen shows it: tokens per UTC day (the chart) and
// per caller and day (the table).
import type { UsageRow } from './types';

export interface DayTotal {
  day: string;
  inputTokens: number;
  outputTokens: number;
}

export function totalsByDay(rows: UsageRow[]): DayTotal[] {
  const days = new Map<string, DayTotal>();
  for (const row of rows) {
    const total = days.get(row.day) ?? { day: row.day, inputTokens: 0, outputTokens: 0 };
    total.inputTokens += row.inputTokens;
    total.outputTokens += row.outputTokens;
    days.set(row.day, total);
  }
  return [...days.values()].sort((a, b) => a.day.localeCompare(b.day));
}

export interface CallerDay {
  day: string;
  subject: string;
  subjectKind: string;
  requests: number;
  tokens: number;
}

export function totalsByCallerAndDay(rows: UsageRow[]): CallerDay[] {
  const totals = new Map<string, CallerDay>();
  for (const row of rows) {
    const key = `${row.day}\u0000${row.subject}`;
    const total = totals.get(key) ?? {
      day: row.day,
      subject: row.subject,
      subjectKind: row.subjectKind,
      requests: 0,
      tokens: 0,
    };
    total.requests += row.requests;
    total.tokens += row.inputTokens + row.outputTokens;
    totals.set(key, total);
  }
  return [...totals.values()].sort((a, b) => b.day.localeCompare(a.day) || b.tokens - a.tokens);
}
