// The tus server's locker for many Plinth servers on one PostgreSQL: an upload's lock is a
// session-level advisory lock held on this server's one reserved connection, so a request on
// another server cannot take it. Inside one server (where that session's locks are re-entrant)
// a map keeps requests apart. A request that finds the lock taken asks its holder to let go (on
// this server directly, on another through NOTIFY) as @tus/server's own lockers do: the holder's
// request ends after the lock-drain delay, keeping what it wrote, and the waiter then checks the
// upload's offset like any PATCH. If the lock connection fails, every holder is told to stop at
// once (its lock is gone) and the next lock opens a new connection.
import type { Lock, Locker, RequestRelease } from '@tus/utils';
import type { ReservedSql, Sql } from 'postgres';
import { AppError } from '../../../core/errors.js';
import * as repo from './resumable.repo.js';

export const UNLOCK_CHANNEL = 'plinth_resumable_unlock';

const locked = () =>
  new AppError('STORAGE_UPLOAD_LOCKED', undefined, {
    nextActions: 'Retry later: another request is still writing this upload (tus clients retry 423 by themselves).',
  });

export interface PgLocker extends Locker {
  /** Takes the lock if it is free right now; the release function, or null when it is held. */
  tryAcquire(id: string): Promise<(() => Promise<void>) | null>;
  /** Starts listening for other servers' unlock requests. */
  start(): Promise<void>;
  close(): Promise<void>;
}

interface Holder {
  requestRelease?: RequestRelease;
  released: Promise<void>;
  release: () => void;
}

export function createPgLocker(sql: Sql, options: { acquireTimeoutMs: number; onError(err: unknown): void }): PgLocker {
  const holders = new Map<string, Holder>();
  let connection: Promise<ReservedSql> | undefined;
  let unlisten: (() => Promise<void>) | undefined;
  let closed = false;

  const session = () => {
    connection ??= sql.reserve();
    return connection;
  };

  /** The lock session failed: its locks are gone, so every holder stops writing now. */
  function dropSession(err: unknown): void {
    options.onError(err);
    const dead = connection;
    connection = undefined;
    void dead?.then((c) => c.release()).catch(() => {});
    for (const holder of holders.values()) void holder.requestRelease?.();
  }

  function hold(id: string, requestRelease?: RequestRelease): Holder {
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holder = { requestRelease, released, release };
    holders.set(id, holder);
    return holder;
  }

  /** One attempt: true when this request now holds the lock. */
  async function attempt(id: string, requestRelease?: RequestRelease): Promise<boolean> {
    if (holders.has(id)) return false;
    const holder = hold(id, requestRelease);
    try {
      if (await repo.tryLockUpload(await session(), id)) return true;
    } catch (err) {
      dropSession(err);
    }
    holders.delete(id);
    holder.release();
    return false;
  }

  async function release(id: string): Promise<void> {
    const holder = holders.get(id);
    if (!holder) return;
    try {
      if (connection) await repo.unlockUpload(await connection, id);
    } catch (err) {
      dropSession(err);
    } finally {
      holders.delete(id);
      holder.release();
    }
  }

  /** Waits for a local release, or a moment (another server's holder is asked through NOTIFY). */
  const pause = (id: string, ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
      void holders.get(id)?.released.then(done);
    });

  async function acquire(id: string, requestRelease: RequestRelease, signal: AbortSignal): Promise<void> {
    const deadline = Date.now() + options.acquireTimeoutMs;
    let asked = false;
    let delay = 20;
    while (!signal.aborted && !closed) {
      if (await attempt(id, requestRelease)) return;
      if (Date.now() >= deadline) break;
      const local = holders.get(id);
      if (local) void local.requestRelease?.();
      else if (!asked) {
        asked = true;
        await repo.requestUnlock(sql, UNLOCK_CHANNEL, id).catch(options.onError);
      }
      await pause(id, Math.min(delay, deadline - Date.now()), signal);
      delay = Math.min(delay * 2, 250);
    }
    throw locked();
  }

  return {
    newLock(id: string): Lock {
      return {
        lock: (signal, requestRelease) => acquire(id, requestRelease, signal),
        unlock: () => release(id),
      };
    },
    async tryAcquire(id) {
      return (await attempt(id)) ? () => release(id) : null;
    },
    async start() {
      const listening = await sql.listen(UNLOCK_CHANNEL, (id) => void holders.get(id)?.requestRelease?.());
      unlisten = () => listening.unlisten();
    },
    async close() {
      closed = true;
      await unlisten?.().catch(() => {});
      const open = connection;
      connection = undefined;
      if (open) (await open).release();
    },
  };
}
