// Where the function runtime's Unix socket lives: a private directory (0700) in the system's
// temporary directory, made at the first start and made again should something (a temp cleaner)
// have removed it, with a fresh socket name for each runtime process. Where there can be none
// (Windows, a path too long for a socket, no directory) the runtime's loopback port serves alone.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** sun_path holds 108 bytes on Linux, 104 on macOS: a longer socket path cannot be bound. */
const MAX_SOCKET_PATH = 100;

/** Removes a path, whatever became of it meanwhile: the runtime starts either way. */
function removeQuietly(at: string): void {
  try {
    rmSync(at, { recursive: true, force: true });
  } catch {
    // Gone already, or no longer ours to remove (its directory replaced).
  }
}

export interface RuntimeSocketPlace {
  /** The socket for the next runtime process (the previous one's is removed), or null: the port. */
  next(): string | null;
  /** Removes the directory and what is in it. */
  remove(): void;
}

export function runtimeSocketPlace(
  enabled: boolean,
  warn: (message: string, err: unknown) => void,
): RuntimeSocketPlace {
  let dir: string | null = null;
  let current: string | null = null;
  let count = 0;

  function ensureDir(): string | null {
    try {
      if (dir === null) dir = mkdtempSync(path.join(tmpdir(), 'plinth-runtime-'));
      else mkdirSync(dir, { recursive: true, mode: 0o700 });
      return dir;
    } catch (err) {
      warn('no directory for the function runtime socket; invocations use its port', err);
      return null;
    }
  }

  return {
    next() {
      if (current) removeQuietly(current);
      current = null;
      if (!enabled) return null;
      const at = ensureDir();
      count += 1;
      if (at === null || path.join(at, `r${count}.sock`).length > MAX_SOCKET_PATH) return null;
      current = path.join(at, `r${count}.sock`);
      return current;
    },
    remove() {
      if (dir) removeQuietly(dir);
      dir = null;
      current = null;
    },
  };
}
