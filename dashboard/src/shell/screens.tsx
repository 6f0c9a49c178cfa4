// The registry of screens, in navigation order: each owns a path and everything under it, renders
// lazily (one chunk per screen) and gets the rest of the path (e.g. a table name) to render.
import { lazy, type ReactNode } from 'react';

const Overview = lazy(() => import('../screens/Overview'));
const TablesList = lazy(() => import('../screens/tables/TablesList'));
const TableView = lazy(() => import('../screens/tables/TableView'));

export interface ScreenEntry {
  path: string;
  label: string;
  /** `rest` is the decoded path below the screen's own ("" on the screen itself). */
  render(rest: string): ReactNode;
}

export const screens: ScreenEntry[] = [
  { path: '/', label: 'Overview', render: () => <Overview /> },
  { path: '/tables', label: 'Tables', render: (rest) => (rest ? <TableView table={rest} /> : <TablesList />) },
];

/** The screen that owns a path and the rest of it below the screen's own, or null. */
export function screenFor(path: string): { screen: ScreenEntry; rest: string } | null {
  if (path === '/') return { screen: screens[0] as ScreenEntry, rest: '' };
  for (const screen of screens) {
    if (screen.path === '/') continue;
    if (path === screen.path) return { screen, rest: '' };
    if (path.startsWith(`${screen.path}/`))
      return { screen, rest: decodeURIComponent(path.slice(screen.path.length + 1)) };
  }
  return null;
}
