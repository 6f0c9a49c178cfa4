// Binds admin access tokens to a live admin session: a token whose `sid` names no live session of
// its subject is refused, so a token minted with a leaked signing key opens nothing. A confirmed
// session is remembered for one access-token lifetime, so only an admin's first call after that
// costs a database read (user tokens never do); revocations still end it at once (revoked-sessions).
import type { Deps } from '../../deps.js';
import { findLiveAdminSession } from './sessions.repo.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Admin sessions remembered at most (there is one admin; this bounds forged-token noise). */
const MAX_REMEMBERED = 1_000;

export interface AdminSessionBinding {
  /** True (or a promise of it) when `sessionId` is a live admin session of `subject`. */
  isLive(sessionId: string, subject: string): boolean | Promise<boolean>;
}

export function createAdminSessionBinding(deps: Pick<Deps, 'sql' | 'clock' | 'config'>): AdminSessionBinding {
  const lifetimeMs = deps.config.accessTokenTtlSeconds * 1000;
  // `${sessionId} ${subject}` → until when it counts as live without asking the database.
  const confirmed = new Map<string, number>();

  return {
    isLive(sessionId, subject) {
      if (!UUID.test(sessionId)) return false;
      const key = `${sessionId} ${subject}`;
      const now = deps.clock.now();
      const until = confirmed.get(key);
      if (until !== undefined && until > now.getTime()) return true;
      confirmed.delete(key);
      return findLiveAdminSession(deps.sql, sessionId, subject, now).then((expiresAt) => {
        if (!expiresAt) return false;
        if (confirmed.size >= MAX_REMEMBERED) confirmed.delete(confirmed.keys().next().value as string);
        confirmed.set(key, Math.min(expiresAt.getTime(), now.getTime() + lifetimeMs));
        return true;
      });
    },
  };
}
