// The shapes of /api/logs answers, the filters the logs screen sends, and the query string of each.

export interface LogEntry {
  id: string;
  timestamp: string;
  source: 'requests' | 'functions' | 'audit' | 'errors';
  level: string;
  method: string | null;
  route: string | null;
  status: number | null;
  durationMs: number | null;
  principal: string | null;
  userId: string | null;
  requestId: string | null;
  slug: string | null;
  message: string;
  details: Record<string, unknown> | null;
}

export interface LogLine {
  id: string;
  timestamp: string;
  eventMessage: string;
  body: LogEntry;
  source: string;
}

export interface LogFilter {
  source: string;
  level: string;
  /** datetime-local values (the browser's time zone); '' for none. */
  from: string;
  to: string;
  userId: string;
  requestId: string;
  text: string;
}

export const NO_FILTER: LogFilter = { source: '', level: '', from: '', to: '', userId: '', requestId: '', text: '' };

/** An ISO time as a datetime-local value in the browser's time zone ('' for none or a bad one). */
const localOf = (iso: string | null): string => {
  const at = iso ? new Date(iso) : null;
  if (!at || Number.isNaN(at.getTime())) return '';
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** The filter a link asks for (?source=&level=&from=&to=&q=, times in ISO), e.g. from an overview chart. */
export function filterOfUrl(search: string): LogFilter {
  const query = new URLSearchParams(search);
  return {
    ...NO_FILTER,
    source: query.get('source') ?? '',
    level: query.get('level') ?? '',
    from: localOf(query.get('from')),
    to: localOf(query.get('to')),
    text: query.get('q') ?? '',
  };
}

const isoOf = (local: string) => (local ? new Date(local).toISOString() : '');

/** The query of GET /api/logs/search for a filter and a page. */
export function searchQuery(
  filter: LogFilter,
  limit: number,
  offset: number,
  { excludeConsole = false } = {},
): URLSearchParams {
  const pairs: [string, string][] = [
    ['source', filter.source],
    ['level', filter.level],
    ['start_date', isoOf(filter.from)],
    ['end_date', isoOf(filter.to)],
    ['user_id', filter.userId.trim()],
    ['request_id', filter.requestId.trim()],
    ['q', filter.text.trim()],
    ['limit', String(limit)],
    ['offset', String(offset)],
    ['exclude_console', excludeConsole ? 'true' : ''],
  ];
  return new URLSearchParams(pairs.filter(([, value]) => value !== ''));
}

/** The query of GET /api/logs/stream: the tail filters by source and level only. */
export function tailQuery(filter: LogFilter): URLSearchParams {
  const pairs: [string, string][] = [
    ['source', filter.source],
    ['level', filter.level],
  ];
  return new URLSearchParams(pairs.filter(([, value]) => value !== ''));
}

/** "0-49/120" → 120; "…/*" (more than the server counts) → null. */
export const totalOf = (contentRange: string | null): number | null => {
  const total = contentRange?.split('/')[1];
  return total === undefined || total === '*' ? null : Number(total);
};
