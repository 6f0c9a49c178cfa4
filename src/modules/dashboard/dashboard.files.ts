// Where the built dashboard lives and how each of its files is cached: hashed assets for a year,
// index.html (the SPA entry for every client route) never, so a rebuild shows at once.
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/dashboard at the repository root, from src/modules/dashboard and dist/modules/dashboard alike. */
export const defaultDashboardRoot = fileURLToPath(new URL('../../../dist/dashboard/', import.meta.url));

export const INDEX_FILE = 'index.html';

/** Whether the dashboard was built (the install step runs `npm run build`). */
export const isBuilt = (root: string): boolean => existsSync(path.join(root, INDEX_FILE));

/**
 * The file a request path names inside the root, or the SPA entry when it names none (a client
 * route such as /dashboard/tables/todos). Paths that climb out of the root get the entry too.
 */
export function fileFor(root: string, requested: string): string {
  const relative = path.posix.normalize(`/${requested}`).slice(1);
  if (relative === '' || relative.startsWith('..')) return INDEX_FILE;
  const absolute = path.join(root, relative);
  if (!absolute.startsWith(root)) return INDEX_FILE;
  try {
    return statSync(absolute).isFile() ? relative : INDEX_FILE;
  } catch {
    return INDEX_FILE;
  }
}

/** Vite names files under assets/ by their content hash: they never change under one name. */
export const cacheControlFor = (file: string): string =>
  file.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
