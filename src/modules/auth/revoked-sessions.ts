// The sessions that ended within the access-token lifetime, known to every server: loaded from
// auth.session_revocations at start (and after a lost LISTEN connection), kept current by
// NOTIFY plinth_session_revoked; access tokens of these sessions are refused (http/principal.ts).
import type { Deps } from '../../deps.js';
import { purgeRevocations, revocationsSince } from './sessions.repo.js';

export const SESSION_REVOKED_CHANNEL = 'plinth_session_revoked';

export interface RevokedSessions {
  /** True when the session ended and its access tokens may still be unexpired. */
  has(sessionId: string): boolean;
  /** Remembers sessions this server just ended (the NOTIFY will say it again). */
  add(sessionIds: string[]): void;
  /** Calls `listener` with every session as this server learns that it ended. */
  onEnded(listener: (sessionId: string) => void): void;
  close(): Promise<void>;
}

type RevocationDeps = Pick<Deps, 'sql' | 'clock' | 'config'>;

export async function startRevokedSessions(
  deps: RevocationDeps,
  onError: (err: unknown) => void,
): Promise<RevokedSessions> {
  const lifetimeMs = deps.config.accessTokenTtlSeconds * 1000;
  // Session id → when its last access token has expired (insertion order ≈ expiry order).
  const until = new Map<string, number>();
  const listeners: ((sessionId: string) => void)[] = [];
  let lastPurge = 0;

  const remember = (id: string, revokedAtMs: number) => {
    until.delete(id);
    until.set(id, revokedAtMs + lifetimeMs);
    for (const listener of listeners) listener(id);
  };

  /** Drops entries whose tokens have all expired; at most once per lifetime, also in the table. */
  const prune = () => {
    const now = deps.clock.now().getTime();
    for (const [id, end] of until) {
      if (end > now) break;
      until.delete(id);
    }
    if (now - lastPurge < lifetimeMs) return;
    lastPurge = now;
    purgeRevocations(deps.sql, new Date(now - lifetimeMs)).catch(onError);
  };

  const load = async () => {
    const since = new Date(deps.clock.now().getTime() - lifetimeMs);
    const rows = await revocationsSince(deps.sql, since);
    for (const row of rows) remember(row.sessionId, row.revokedAt.getTime());
    prune();
  };

  let subscribed = false;
  const subscription = await deps.sql.listen(
    SESSION_REVOKED_CHANNEL,
    (sessionId) => {
      remember(sessionId, deps.clock.now().getTime());
      prune();
    },
    // Revocations announced while the connection was lost are read back from the table.
    () => {
      if (subscribed) load().catch(onError);
      subscribed = true;
    },
  );
  await load();

  return {
    has: (sessionId) => until.has(sessionId),
    add(sessionIds) {
      const now = deps.clock.now().getTime();
      for (const id of sessionIds) remember(id, now);
    },
    onEnded: (listener) => void listeners.push(listener),
    close: () => subscription.unlisten(),
  };
}
