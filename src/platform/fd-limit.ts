// The process's open-file limit, and the connection cap derived from it: excess connections are
// refused so that sockets can never starve the pool, uploads and the function runtime of files.
import { readFileSync } from 'node:fs';

/** Connections when the limit cannot be read (not Linux). */
const FALLBACK_MAX_CONNECTIONS = 1_000;
/** Files kept for everything else: the pool, LISTEN, the runtime's pipes, logs, node itself. */
const RESERVED_FILES = 64;

/** The soft limit on open files (`ulimit -n`), from /proc/self/limits; undefined elsewhere. */
export function openFileLimit(limitsText?: string): number | undefined {
  let text = limitsText;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return undefined;
    }
  }
  const match = /^Max open files\s+(\d+|unlimited)/m.exec(text);
  if (!match) return undefined;
  return match[1] === 'unlimited' ? Number.MAX_SAFE_INTEGER : Number(match[1]);
}

/**
 * The default cap on concurrent HTTP connections: half of what the open-file limit leaves after
 * the reserve, since a request in flight may hold a second file (an upload's temporary file, a
 * proxied socket to the function runtime or S3).
 */
export function defaultMaxConnections(limit = openFileLimit()): number {
  if (limit === undefined) return FALLBACK_MAX_CONNECTIONS;
  return Math.max(16, Math.floor((Math.min(limit, 1_000_000) - RESERVED_FILES) / 2));
}
