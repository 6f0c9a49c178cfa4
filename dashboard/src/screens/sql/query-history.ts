// The SQL editor's history of queries run, kept in this browser (localStorage), newest first.
import { useCallback, useState } from 'react';
import type { RunMode } from './sql-types';

export interface HistoryEntry {
  sql: string;
  mode: RunMode;
  at: string;
  ok: boolean;
}

const KEY = 'plinth.dashboard.sqlHistory';
const KEEP = 50;

function read(): HistoryEntry[] {
  try {
    const stored = JSON.parse(localStorage.getItem(KEY) ?? '[]') as unknown;
    return Array.isArray(stored) ? (stored as HistoryEntry[]) : [];
  } catch {
    return [];
  }
}

export function useQueryHistory() {
  const [entries, setEntries] = useState<HistoryEntry[]>(read);
  const keep = useCallback((next: HistoryEntry[]) => {
    localStorage.setItem(KEY, JSON.stringify(next));
    setEntries(next);
  }, []);
  const add = useCallback((entry: HistoryEntry) => keep([entry, ...read()].slice(0, KEEP)), [keep]);
  const clear = useCallback(() => keep([]), [keep]);
  return { entries, add, clear };
}
