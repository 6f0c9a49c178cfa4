// One log entry as a line of PostgreSQL's COPY text format (tab-separated, \N for null), in the
// column order of COPY_COLUMNS: the only per-entry work the writer does on the request path.
import type { LogEntry } from './log-entry.js';

export const COPY_COLUMNS =
  'id, ts, source, level, method, route, status, duration_ms, principal, user_id, ip, request_id, slug, message, details';

const NULL = '\\N';
const SPECIAL = /[\\\t\n\r]/;
const SPECIALS = /[\\\t\n\r]/g;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A text value as COPY reads it: backslash, tab and line breaks escaped (most values have none). */
const text = (value: string | null): string =>
  value === null ? NULL : SPECIAL.test(value) ? value.replace(SPECIALS, (c) => ESCAPED[c]!) : value;

const numberOrNull = (value: number | null): string => (value === null ? NULL : String(value));

/**
 * `microsecond` (0–999) orders entries of the same millisecond by arrival: the timestamp is the
 * entry's millisecond plus that many microseconds, so newest-first holds without a sequence.
 */
export function copyRowOf(e: LogEntry, microsecond: number): string {
  const ts = e.ts.toISOString();
  return `${e.id}\t${ts.slice(0, 23)}${String(microsecond).padStart(3, '0')}Z\t${e.source}\t${e.level}\t${text(e.method)}\t${text(e.route)}\t${numberOrNull(
    e.status,
  )}\t${numberOrNull(e.durationMs)}\t${text(e.principal)}\t${text(e.userId)}\t${text(e.ip)}\t${text(
    e.requestId,
  )}\t${text(e.slug)}\t${text(e.message)}\t${e.details === null ? NULL : text(JSON.stringify(e.details))}\n`;
}
