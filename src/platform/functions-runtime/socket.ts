// Where the function runtime's Unix socket lives: a private directory (0700) in the system's
// temporary directory, made at the first start and made again should something (a temp cleaner)
// have removed it, with a fresh socket name for each runtime process. Its name carries the server's
// pid, so directories left by servers that were killed outright are removed by the next one.
// Where there can be none (Windows, a path too long for a socket, no directory) the runtime's
// loopback port serves alone.
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** sun_path holds 108 bytes on Linux, 104 on macOS: a longer socket path cannot be bound. */
const MAX_SOCKET_PATH = 100;

const PREFIX = 'plinth-runtime-';

/** Removes a path, whatever became of it meanwhile: the runtime starts either way. */
function removeQuietly(at: string): void {
  try {
    rmSync(at, { recursive: true, force: true });
  } catch {
    // Gone already, or no longer ours to remove (its directory replaced).
  }
}

const running = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Removes the socket directories of servers no longer running (killed before they could). */
function removeLeftovers(): void {
  try {
    for (const name of readdirSync(tmpdir())) {
      const pid = Number(new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1]);
      if (pid > 0 && pid !== process.pid && !running(pid)) removeQuietly(path.join(tmpdir(), name));
    }
  } catch {
    // An unreadable temporary directory: nothing to tidy.
  }
}

export interface RuntimeSocketPlace {
  /** The socket for the next runtime process (the previous one's is removed), or null: the port. */
  next(): string | null;
  /** Where the relay to the API and allowed origins listens (one per server), or null: none. */
  relay(): string | null;
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
      if (dir === null) {
        removeLeftovers();
        dir = mkdtempSync(path.join(tmpdir(), `${PREFIX}${process.pid}-`));
      } else mkdirSync(dir, { recursive: true, mode: 0o700 });
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
    relay() {
      if (!enabled) return null;
      const at = ensureDir();
      const place = at === null ? null : path.join(at, 'relay.sock');
      if (place === null || place.length > MAX_SOCKET_PATH) return null;
      removeQuietly(place);
      return place;
    },
    remove() {
      if (dir) removeQuietly(dir);
      dir = null;
      current = null;
    },
  };
}
