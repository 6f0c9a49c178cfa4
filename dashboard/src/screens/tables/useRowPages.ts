// The rows of a filtered, sorted table, fetched a page at a time for the range the grid shows
// (limit/offset + Prefer: count=exact, the total from Content-Range), so a scroll to row 100,000
// fetches that page only.
import { keepPreviousData, useQueries } from '@tanstack/react-query';
import { useRef } from 'react';
import { useApi } from '../../api/context';
import { type Row, recordsPath } from './tableApi';

export const PAGE_SIZE = 100;

/** "0-99/100000" → 100000; "* /0" → 0. */
const totalOf = (contentRange: string | null) => Number(contentRange?.split('/')[1] ?? 0) || 0;

export function useRowPages(table: string, query: string, firstIndex: number, lastIndex: number) {
  const api = useApi();
  const first = Math.floor(Math.max(0, firstIndex) / PAGE_SIZE);
  const last = Math.max(first, Math.floor(Math.max(0, lastIndex) / PAGE_SIZE));
  const pageNumbers = Array.from({ length: last - first + 1 }, (_, i) => first + i);

  const pages = useQueries({
    queries: pageNumbers.map((page) => ({
      queryKey: ['rows', table, query, page],
      placeholderData: page === 0 ? keepPreviousData : undefined,
      queryFn: async () => {
        const params = new URLSearchParams(query);
        params.set('limit', String(PAGE_SIZE));
        params.set('offset', String(page * PAGE_SIZE));
        const res = await api.request(`${recordsPath(table)}?${params}`, { headers: { prefer: 'count=exact' } });
        return { rows: (await res.json()) as Row[], total: totalOf(res.headers.get('content-range')) };
      },
    })),
  });

  // Pages scrolled to for the first time have no count yet: the last one seen for this query holds.
  const known = useRef<{ query: string; total: number } | null>(null);
  const loaded = pages.find((p) => p.data)?.data;
  if (loaded) known.current = { query: `${table}?${query}`, total: loaded.total };
  const total = known.current?.query === `${table}?${query}` ? known.current.total : undefined;
  return {
    total,
    error: pages.find((p) => p.error)?.error ?? null,
    fetching: pages.some((p) => p.isFetching),
    rowAt(index: number): Row | undefined {
      const page = pages[Math.floor(index / PAGE_SIZE) - first];
      return page?.data?.rows[index % PAGE_SIZE];
    },
  };
}
