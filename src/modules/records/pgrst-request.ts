// What records and RPC requests share: the request parts PostgREST clients send, the grammar
// errors as PostgREST's, paging by Range, and Content-Range.
import type { Principal } from '../../core/principal.js';
import { GrammarError, type ParsedQuery, type Preferences } from './grammar/ast.js';
import { parsePreferences, parseQuery } from './grammar/query.js';
import { recordsError } from './records-errors.js';
import type { TimezoneCheck } from './timezone.js';

/** The headers of a PostgREST request that change its answer. */
export interface PgrstHeaders {
  prefer?: string;
  accept?: string;
  range?: string;
  acceptProfile?: string;
  contentProfile?: string;
}

/** What a records request and a function call both carry besides their method and target. */
export interface PgrstRequest {
  query: [string, string][];
  headers: PgrstHeaders;
  /** The parsed body (JSON, or CSV rows); undefined without one. */
  body: unknown;
  principal: Principal;
}

/** How the records and RPC services are set up: the row cap, the exposed schemas, the time zones. */
export interface PgrstServiceOptions {
  maxRows: number;
  schemas: string[];
  timezones: TimezoneCheck;
}

export interface PgrstResponse {
  status: number;
  headers: Record<string, string>;
  /** JSON text, or undefined for an empty body. */
  body?: string;
}

/** The query string through the grammar; its errors as PostgREST's (400 PGRST1xx). */
export function parse(query: [string, string][]): ParsedQuery {
  try {
    return parseQuery(query.filter(([key]) => key !== 'schema'));
  } catch (err) {
    if (err instanceof GrammarError) {
      throw recordsError('VALIDATION_ERROR', err.code, err.message, { details: err.details ?? null });
    }
    throw err;
  }
}

/** `Range: 0-9` (items) as paging, unless the query string pages already. */
export function applyRange(query: ParsedQuery, range: string | undefined): ParsedQuery {
  const match = range ? /^(?:items=)?\s*(\d+)-(\d*)\s*$/.exec(range) : null;
  if (!match || query.paging.some((p) => p.path.length === 0)) return query;
  const offset = Number(match[1]);
  const limit = match[2] ? Number(match[2]) - offset + 1 : undefined;
  if (limit !== undefined && limit <= 0) {
    throw recordsError('RANGE_NOT_SATISFIABLE', 'PGRST103', 'Requested range not satisfiable');
  }
  return { ...query, paging: [...query.paging, { path: [], offset, limit }] };
}

export function contentRange(offset: number, rows: number, total: number | null): string {
  const size = total === null ? '*' : String(total);
  return rows === 0 ? `*/${size}` : `${offset}-${offset + rows - 1}/${size}`;
}

/** The Prefer header; with handling=strict, preferences it does not understand are a 400 PGRST122. */
export function preferencesOf(header: string | undefined): Preferences {
  const prefs = parsePreferences(header);
  if (prefs.handling === 'strict' && prefs.invalid) {
    throw recordsError('VALIDATION_ERROR', 'PGRST122', 'Invalid preferences given with handling=strict', {
      details: `Invalid preferences: ${prefs.invalid.join(', ')}`,
    });
  }
  return prefs;
}

/**
 * The Preference-Applied header: the preferences this request honoured. Every request honours
 * count, handling, tx and timezone; `also` names what its kind of request honours besides.
 */
export function preferenceApplied(
  prefs: Preferences,
  also: { return?: boolean; resolution?: boolean; missing?: boolean; maxAffected?: boolean },
): string {
  return [
    also.return && prefs.return && `return=${prefs.return}`,
    prefs.count && `count=${prefs.count}`,
    also.resolution && prefs.resolution && `resolution=${prefs.resolution}`,
    also.missing && prefs.missing && `missing=${prefs.missing}`,
    prefs.handling && `handling=${prefs.handling}`,
    also.maxAffected && prefs.maxAffected !== undefined && `max-affected=${prefs.maxAffected}`,
    prefs.tx && `tx=${prefs.tx}`,
    prefs.timezone && `timezone=${prefs.timezone}`,
  ]
    .filter(Boolean)
    .join(', ');
}
