// Pages of the logs search with or without the console's own requests (its /dashboard assets and
// the / redirect, which flood a new project's logs). The search API has no "not this route"
// filter, so hiding them is done here: a page reads server batches from its start offset until it
// holds PAGE_SIZE other lines (or MAX_BATCHES were read), and says where the next page starts.
import { type LogFilter, type LogLine, searchQuery, totalOf } from './log-types';

export const PAGE_SIZE = 50;
const BATCH = 200;
const MAX_BATCHES = 5;

/** A request of the console itself: its assets and pages under /dashboard, and / (its redirect). */
export const isConsoleRequest = (line: LogLine): boolean => {
  const route = line.body.route;
  return line.body.source === 'requests' && route !== null && (route === '/' || route.startsWith('/dashboard'));
};

export interface LogPage {
  lines: LogLine[];
  /** The server offset the next page starts at. */
  next: number;
  hasMore: boolean;
  /** Console requests skipped on this page. */
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
  if (showConsole) {
    const { lines, total } = await fetchLines(searchQuery(filter, PAGE_SIZE, start));
    const next = start + lines.length;
    return { lines, next, hidden: 0, total, hasMore: total === null ? lines.length === PAGE_SIZE : next < total };
  }
  const kept: LogLine[] = [];
  let hidden = 0;
  let offset = start;
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const { lines, total } = await fetchLines(searchQuery(filter, BATCH, offset));
    for (const [i, line] of lines.entries()) {
      if (isConsoleRequest(line)) {
        hidden++;
        continue;
      }
      kept.push(line);
      if (kept.length === PAGE_SIZE) {
        const next = offset + i + 1;
        return { lines: kept, next, hidden, total: null, hasMore: total === null || next < total };
      }
    }
    offset += lines.length;
    const exhausted = total === null ? lines.length < BATCH : offset >= total;
    if (exhausted) {
      // Everything after `start` was read: the count is exact when this is the first page.
      return { lines: kept, next: offset, hidden, total: start === 0 ? kept.length : null, hasMore: false };
    }
  }
  return { lines: kept, next: offset, hidden, total: null, hasMore: true };
}

/** GET /api/logs/search through the API client: the lines and the total of Content-Range. */
export const searchFetcher =
  (request: (path: string) => Promise<Response>): Fetch =>
  async (query) => {
    const res = await request(`/api/logs/search?${query}`);
    return { lines: (await res.json()) as LogLine[], total: totalOf(res.headers.get('content-range')) };
  };
