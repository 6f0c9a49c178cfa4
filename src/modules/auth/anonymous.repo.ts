// SQL of anonymous users: creating one, giving it an email and password (conversion), and the
// cleanup of those inactive for too long.
import type { Queryable } from '../../core/db.js';
import type { User } from './auth.schemas.js';
import { findUserById } from './users.repo.js';

export async function insertAnonymousUser(db: Queryable, now: Date): Promise<User> {
  const [row] = await db<{ id: string }[]>`
    insert into auth.users (email, is_anonymous, created_at, updated_at)
    values (null, true, ${now}, ${now})
    returning id`;
  return (await findUserById(db, row!.id))!;
}

/** Locks the user's row for the rest of the transaction; what a conversion needs to know. */
export async function lockUser(db: Queryable, userId: string) {
  const [row] = await db<{ id: string; email: string | null; isAnonymous: boolean; hasPassword: boolean }[]>`
    select id, email, is_anonymous as "isAnonymous", password_hash is not null as "hasPassword"
    from auth.users where id = ${userId} for update`;
  return row;
}

export async function emailTaken(db: Queryable, email: string, exceptUserId: string): Promise<boolean> {
  const [row] = await db`select 1 from auth.users where email = ${email} and id <> ${exceptUserId}`;
  return row !== undefined;
}

/**
 * Gives an anonymous user its email and password. It stays anonymous while `stillAnonymous`
 * (the project requires a verified email; verifying it ends anonymity, see markEmailVerified).
 */
export async function setEmailAndPassword(
  db: Queryable,
  change: { userId: string; email: string; passwordHash: string; stillAnonymous: boolean; now: Date },
) {
  await db`
    update auth.users
    set email = ${change.email}, password_hash = ${change.passwordHash}, email_verified = false,
        is_anonymous = ${change.stillAnonymous}, updated_at = ${change.now}
    where id = ${change.userId}`;
}

/** A linked provider ends anonymity; its verified address becomes the user's when it has none. */
export async function endAnonymity(db: Queryable, userId: string, email: string | null, now: Date) {
  await db`
    update auth.users
    set is_anonymous = false, updated_at = ${now},
        email = coalesce(auth.users.email, ${email}::text),
        email_verified = case when auth.users.email is null and ${email}::text is not null then true else email_verified end
    where id = ${userId}`;
}

/**
 * Deletes up to `limit` anonymous users with no activity since `cutoff`: neither the user row
 * changed nor any session of theirs started or refreshed. Rows another server is deleting are
 * skipped (SKIP LOCKED), so concurrent sweeps never wait for nor double-count each other.
 * Returns the ids deleted and the sessions of theirs that were still live.
 */
export async function deleteInactiveAnonymousUsers(
  db: Queryable,
  sweep: { cutoff: Date; now: Date; limit: number; skipIds: string[]; onlyId?: string },
) {
  const { cutoff, now, limit, skipIds } = sweep;
  const onlyId = sweep.onlyId ?? null;
  const [row] = await db<{ deletedIds: string[]; endedSessionIds: string[] }[]>`
    with doomed as (
      select u.id from auth.users u
      where u.is_anonymous and u.updated_at < ${cutoff} and u.created_at < ${cutoff}
        and u.id <> all(${skipIds}::uuid[]) and (${onlyId}::uuid is null or u.id = ${onlyId}::uuid)
        and not exists (
          select 1 from auth.sessions s
          where s.user_id = u.id and greatest(s.created_at, coalesce(s.refreshed_at, s.created_at)) >= ${cutoff})
      order by u.updated_at
      limit ${limit}
      for update of u skip locked
    ), ended as (
      select s.id from auth.sessions s join doomed d on d.id = s.user_id
      where s.revoked_at is null and s.expires_at > ${now}
    ), gone as (
      delete from auth.users u using doomed d where u.id = d.id returning u.id
    )
    select coalesce((select array_agg(id::text) from gone), '{}') as "deletedIds",
           coalesce((select array_agg(id::text) from ended), '{}') as "endedSessionIds"`;
  return row!;
}

/** The ids a sweep would take next (no lock): what it tries one by one after a refused batch. */
export async function findInactiveAnonymousUsers(db: Queryable, cutoff: Date, limit: number, skipIds: string[]) {
  const rows = await db<{ id: string }[]>`
    select u.id from auth.users u
    where u.is_anonymous and u.updated_at < ${cutoff} and u.created_at < ${cutoff}
      and u.id <> all(${skipIds}::uuid[])
      and not exists (
        select 1 from auth.sessions s
        where s.user_id = u.id and greatest(s.created_at, coalesce(s.refreshed_at, s.created_at)) >= ${cutoff})
    order by u.updated_at
    limit ${limit}`;
  return rows.map((r) => r.id);
}
