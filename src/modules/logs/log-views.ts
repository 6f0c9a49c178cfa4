// Stored entries as the wire shows them: the reference platform's search result and source line
// ({id, timestamp, eventMessage, body}) and its Audit object.
import type { z } from 'zod';
import type { StoredEntry } from './logs.repo.js';
import type { auditSchema, entryBodySchema, searchResultSchema } from './logs.schemas.js';

export type SearchResult = z.input<typeof searchResultSchema>;
export type Audit = z.input<typeof auditSchema>;

/**
 * Access lines as `METHOD route status duration - ip`; other lines (a function's console output
 * among them: a functions entry without a method) `<level> - <message>`.
 */
function eventMessage(entry: StoredEntry): string {
  if (entry.source === 'requests' || (entry.source === 'functions' && entry.method !== null)) {
    return `${entry.method} ${entry.slug ? `/functions/${entry.slug}` : entry.route} ${entry.status} ${entry.durationMs}ms - ${entry.ip ?? '-'}`;
  }
  const stack = typeof entry.details?.stack === 'string' ? `\n${entry.details.stack}` : '';
  return `${entry.level} - ${entry.message}${stack}`;
}

function bodyOf(entry: StoredEntry): z.input<typeof entryBodySchema> {
  const { ts, ...rest } = entry;
  return { ...rest, timestamp: ts.toISOString() };
}

export const toSearchResult = (entry: StoredEntry): SearchResult => ({
  id: entry.id,
  timestamp: entry.ts.toISOString(),
  eventMessage: eventMessage(entry),
  body: bodyOf(entry),
  source: entry.source,
});

export function toAudit(entry: StoredEntry): Audit {
  const { module, ...details } = entry.details ?? {};
  const at = entry.ts.toISOString();
  return {
    id: entry.id,
    actor: entry.userId ?? entry.principal ?? 'unknown',
    action: entry.message,
    module: typeof module === 'string' ? module : 'API',
    details,
    ipAddress: entry.ip,
    requestId: entry.requestId,
    createdAt: at,
    updatedAt: at,
  };
}
