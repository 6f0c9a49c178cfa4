// SQL for a session's assurance level: raising a live session to aal2 and handing it a new
// refresh token (its earlier unused ones are retired, so one refresh chain goes on), in one statement.
import type { Queryable } from '../../core/db.js';
import type { User } from './auth.schemas.js';
import type { AmrEntry } from './tokens.js';
import { userColumns } from './users.repo.js';

export type AssuranceOwner = { userId: string } | { adminSubject: string };

export interface RaisedSession {
  amr: AmrEntry[];
  user: User | null;
}

/**
 * Raises a live session of `owner` to aal2, replacing any earlier amr entry of the same method;
 * undefined when no such live session exists (nothing changes then).
 */
export async function raiseSession(
  db: Queryable,
  r: { sessionId: string; owner: AssuranceOwner; entry: AmrEntry; tokenHash: Buffer; now: Date },
): Promise<RaisedSession | undefined> {
  const userId = 'userId' in r.owner ? r.owner.userId : null;
  const adminSubject = 'adminSubject' in r.owner ? r.owner.adminSubject : null;
  const [row] = await db<RaisedSession[]>`
    with raised as (
      update auth.sessions s set aal = 'aal2',
        amr = coalesce((select jsonb_agg(e) from jsonb_array_elements(s.amr) e where e->>'method' <> ${r.entry.method}), '[]')
          || jsonb_build_array(${JSON.stringify(r.entry)}::text::jsonb)
      where s.id = ${r.sessionId}::uuid and s.revoked_at is null and s.expires_at > ${r.now}
        and (s.user_id = ${userId}::uuid or s.admin_subject = ${adminSubject}::text)
      returning s.id, s.user_id, s.amr),
    retired as (
      update auth.refresh_tokens t set used_at = ${r.now}
      where t.session_id in (select id from raised) and t.used_at is null),
    fresh as (
      insert into auth.refresh_tokens (token_hash, session_id, issued_at)
      select ${r.tokenHash}, id, ${r.now} from raised)
    select raised.amr,
      (select to_jsonb(x) from (select ${userColumns(db)} from auth.user_records u where u.id = raised.user_id) x) as "user"
    from raised`;
  return row;
}

/** Whether a user has a second factor: a verified TOTP factor or a passkey (each can raise a session to aal2). */
export async function userHasSecondFactor(db: Queryable, userId: string): Promise<boolean> {
  const [row] = await db<{ has: boolean }[]>`
    select exists (select 1 from auth.mfa_factors f where f.user_id = ${userId}::uuid and f.status = 'verified')
      or exists (select 1 from auth.passkeys p where p.user_id = ${userId}::uuid) as has`;
  return row?.has ?? false;
}
