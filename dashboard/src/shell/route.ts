// Client routes under /dashboard: the current path (after the base) and navigation through the
// History API, so links work with reload, back and forward (the server answers index.html).
import { useSyncExternalStore } from 'react';

export const BASE = '/dashboard';
const CHANGE = 'plinth:navigate';

const subscribe = (onChange: () => void) => {
  window.addEventListener('popstate', onChange);
  window.addEventListener(CHANGE, onChange);
  return () => {
    window.removeEventListener('popstate', onChange);
    window.removeEventListener(CHANGE, onChange);
  };
};

const currentPath = () => window.location.pathname.slice(BASE.length).replace(/\/+$/, '') || '/';

/** The path after /dashboard, e.g. "/", "/tables", "/tables/todos". */
export function usePath(): string {
  return useSyncExternalStore(subscribe, currentPath);
}

export const hrefOf = (path: string) => `${BASE}${path}`;

export function navigate(path: string): void {
  window.history.pushState(null, '', hrefOf(path));
  window.dispatchEvent(new Event(CHANGE));
}
