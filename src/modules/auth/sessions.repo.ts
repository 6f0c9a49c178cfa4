// SQL for auth.sessions and their rotating refresh tokens (functions in the auth migration).
import type { Queryable } from '../../core/db.js';
import type { User } from './auth.schemas.js';
import type { AmrEntry, AssuranceLevel, VerifiedFactor } from './tokens.js';
import { userColumns } from './users.repo.js';

export type SessionOwner = { userId: string } | { adminSubject: string };

/** Starts a session (at `aal`); returns its owner's second factors (one round trip). */
export async function startSession(
  db: Queryable,
  s: {
    id: string;
    owner: SessionOwner;
    tokenHash: Buffer;
    now: Date;
    ttlSeconds: number;
    amr: AmrEntry[];
    aal: AssuranceLevel;
  },
): Promise<VerifiedFactor[]> {
  const userId = 'userId' in s.owner ? s.owner.userId : null;
  const adminSubject = 'adminSubject' in s.owner ? s.owner.adminSubject : null;
  // One owner column per statement, so each uses its own (partial) index.
  const ownFactors = userId !== null ? db`f.user_id = ${userId}::uuid` : db`f.admin_subject = ${adminSubject}::text`;
  // Passkeys are users' only (the admin has none): TOTP factors first, then passkeys, oldest first.
  const [row] = await db<{ factors: VerifiedFactor[] }[]>`
    select auth.start_session(${s.id}, ${userId}, ${adminSubject}, ${s.tokenHash}, ${s.now},
      make_interval(secs => ${s.ttlSeconds}), ${JSON.stringify(s.amr)}::text::jsonb, ${s.aal}),
    coalesce((select jsonb_agg(jsonb_build_object('id', f.id, 'type', f.factor_type, 'friendlyName', f.friendly_name)
        order by f.created_at, f.id)
      from auth.mfa_factors f where f.status = 'verified' and ${ownFactors}), '[]')
    || coalesce((select jsonb_agg(jsonb_build_object('id', p.id, 'type', 'webauthn', 'friendlyName', p.name)
        order by p.created_at, p.id)
      from auth.passkeys p where p.user_id = ${userId}::uuid), '[]') as factors`;
  return row?.factors ?? [];
}

export interface RotationResult {
  outcome: 'rotated' | 'invalid' | 'reused';
  sessionId: string | null;
  userId: string | null;
  adminSubject: string | null;
  /** The session's user (null for admin sessions and failed rotations). */
  user: User | null;
  /** The session's assurance level and methods (null for failed rotations). */
  aal: AssuranceLevel | null;
  amr: AmrEntry[] | null;
}

/** Rotates a refresh token and reads the session's user, in one round trip. */
export async function rotateRefreshToken(
  db: Queryable,
  r: {
    tokenHash: Buffer;
    successorHash: Buffer;
    now: Date;
    graceSeconds: number;
    ttlSeconds: number;
    admin: boolean;
  },
): Promise<RotationResult> {
  const [row] = await db<RotationResult[]>`
    select r.outcome, r.session_id as "sessionId", r.user_id as "userId", r.admin_subject as "adminSubject",
      (select to_jsonb(x) from (select ${userColumns(db)} from auth.user_records u where u.id = r.user_id) x) as "user",
      s.aal, s.amr
    from auth.rotate_refresh_token(${r.tokenHash}, ${r.successorHash}, ${r.now},
      make_interval(secs => ${r.graceSeconds}), make_interval(secs => ${r.ttlSeconds}), ${r.admin}) r
    left join auth.sessions s on s.id = r.session_id`;
  if (!row) throw new Error('rotate_refresh_token returned no row');
  return row;
}

/** Revokes the sessions that own any of these refresh tokens or have any of these ids; returns their ids. */
export async function revokeSessions(
  db: Queryable,
  by: { tokenHashes: Buffer[]; sessionIds: string[] },
  now: Date,
  reason: string,
): Promise<string[]> {
  const rows = await db<{ id: string }[]>`
    update auth.sessions set revoked_at = ${now}, revoked_reason = ${reason}
    where revoked_at is null and (
      id = any(${by.sessionIds}::uuid[])
      or id in (
        select session_id from auth.refresh_tokens
        where token_hash in (select decode(h, 'hex') from unnest(${by.tokenHashes.map((b) => b.toString('hex'))}::text[]) h)))
    returning id`;
  return rows.map((r) => r.id);
}

/** The session that owns a refresh token, if it is still live. */
export async function findLiveSessionByToken(db: Queryable, tokenHash: Buffer, now: Date) {
  const [row] = await db<{ id: string; userId: string | null; adminSubject: string | null }[]>`
    select s.id, s.user_id as "userId", s.admin_subject as "adminSubject"
    from auth.refresh_tokens t join auth.sessions s on s.id = t.session_id
    where t.token_hash = ${tokenHash} and t.used_at is null and s.revoked_at is null and s.expires_at > ${now}`;
  return row;
}

/** Revokes every live session of a user (password reset; code sign-in taking over an unverified account). */
export async function revokeUserSessions(db: Queryable, userId: string, now: Date, reason: string): Promise<number> {
  const result = await db`
    update auth.sessions set revoked_at = ${now}, revoked_reason = ${reason}
    where user_id = ${userId} and revoked_at is null`;
  return result.count;
}

/** Revokes a user's live sessions but one (`keep`, null: none kept); returns the ended ids. */
export async function revokeSessionsOfUserExcept(
  db: Queryable,
  userId: string,
  keep: string | null,
  now: Date,
  reason: string,
): Promise<string[]> {
  const rows = await db<{ id: string }[]>`
    update auth.sessions set revoked_at = ${now}, revoked_reason = ${reason}
    where user_id = ${userId} and revoked_at is null and id is distinct from ${keep}::uuid
    returning id`;
  return rows.map((r) => r.id);
}

export interface LiveSessionRow {
  id: string;
  createdAt: Date;
  refreshedAt: Date | null;
  expiresAt: Date;
}

/** A user's sessions that are neither revoked nor expired, newest first. */
export async function listLiveUserSessions(db: Queryable, userId: string, now: Date): Promise<LiveSessionRow[]> {
  return db<LiveSessionRow[]>`
    select id, created_at as "createdAt", refreshed_at as "refreshedAt", expires_at as "expiresAt"
    from auth.sessions
    where user_id = ${userId} and revoked_at is null and expires_at > ${now}
    order by created_at desc, id`;
}

/** Revokes one live session of a user, or all of them when `sessionId` is null; returns their ids. */
export async function revokeSessionsOfUser(
  db: Queryable,
  userId: string,
  sessionId: string | null,
  now: Date,
  reason: string,
): Promise<string[]> {
  const rows = await db<{ id: string }[]>`
    update auth.sessions set revoked_at = ${now}, revoked_reason = ${reason}
    where user_id = ${userId} and revoked_at is null
      and (${sessionId}::uuid is null or id = ${sessionId}::uuid)
    returning id`;
  return rows.map((r) => r.id);
}

/** When a live (neither revoked nor expired) admin session of `adminSubject` ends; undefined if none. */
export async function findLiveAdminSession(
  db: Queryable,
  sessionId: string,
  adminSubject: string,
  now: Date,
): Promise<Date | undefined> {
  const [row] = await db<{ expiresAt: Date }[]>`
    select expires_at as "expiresAt" from auth.sessions
    where id = ${sessionId}::uuid and admin_subject = ${adminSubject} and revoked_at is null and expires_at > ${now}`;
  return row?.expiresAt;
}

/** Sessions revoked at or after `since`, oldest first (their access tokens may be unexpired). */
export async function revocationsSince(db: Queryable, since: Date) {
  return db<{ sessionId: string; revokedAt: Date }[]>`
    select session_id as "sessionId", revoked_at as "revokedAt" from auth.session_revocations
    where revoked_at >= ${since} order by revoked_at`;
}

/** Forgets revocations older than `before` (every access token of those sessions has expired). */
export async function purgeRevocations(db: Queryable, before: Date): Promise<void> {
  await db`delete from auth.session_revocations where revoked_at < ${before}`;
}
