// Pages of the logs search with or without the console's own requests (its /dashboard pages and
// files and the / redirect, which flood a new project's logs): the server leaves them out
// (exclude_console=true), and a count of the same search with them says how many were hidden.
import { type LogFilter, type LogLine, searchQuery, totalOf } from './log-types';

export const PAGE_SIZE = 50;

/** A request of the console itself (the live tail's filter; the search asks the server). */
export const isConsoleRequest = (line: LogLine): boolean => {
  const route = line.body.route;
  return line.body.source === 'requests' && route !== null && (route === '/' || route.startsWith('/dashboard'));
};

export interface LogPage {
  lines: LogLine[];
  /** The server offset the next page starts at. */
  next: number;
  hasMore: boolean;
  /** Console requests the search left out (0 when they are shown, or their count is not exact). */
  hidden: number;
  /** How many lines match in all, when known exactly. */
  total: number | null;
}

type Fetch = (query: URLSearchParams) => Promise<{ lines: LogLine[]; total: number | null }>;

export async function readLogPage(
  fetchLines: Fetch,
  filter: LogFilter,
  start: number,
  showConsole: boolean,
): Promise<LogPage> {
  const excludeConsole = !showConsole;
  const [{ lines, total }, withConsole] = await Promise.all([
    fetchLines(searchQuery(filter, PAGE_SIZE, start, { excludeConsole })),
    excludeConsole ? fetchLines(searchQuery(filter, 0, 0)) : null,
  ]);
  const next = start + lines.length;
  const hidden = withConsole?.total != null && total !== null ? withConsole.total - total : 0;
  return { lines, next, hidden, total, hasMore: total === null ? lines.length === PAGE_SIZE : next < total };
}

/** GET /api/logs/search through the API client: the lines and the total of Content-Range. */
export const searchFetcher =
  (request: (path: string) => Promise<Response>): Fetch =>
  async (query) => {
    const res = await request(`/api/logs/search?${query}`);
    return { lines: (await res.json()) as LogLine[], total: totalOf(res.headers.get('content-range')) };
  };
