// SQL for auth.users and the user_records view.
import type { Queryable } from '../../core/db.js';
import type { User } from './auth.schemas.js';
import { jsonText } from '../../core/json-guard.js';

/** Selects a user_records row in the API's shape; `u` is the alias of auth.user_records. */
export const userColumns = (db: Queryable) => db`
  u.id, u.email, u.email_verified as "emailVerified", u.providers, u.profile, u.metadata,
  u.is_anonymous as "isAnonymous",
  to_char(u.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt",
  to_char(u.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "updatedAt"`;

export async function findUserById(db: Queryable, id: string): Promise<User | undefined> {
  const [row] = await db<User[]>`select ${userColumns(db)} from auth.user_records u where u.id = ${id}`;
  return row;
}

/** The user of a live session (not revoked): what the current-session endpoint shows. */
export async function findSessionUser(db: Queryable, userId: string, sessionId: string, now: Date) {
  const [row] = await db<User[]>`
    select ${userColumns(db)}
    from auth.user_records u
    join auth.sessions s on s.user_id = u.id
    where u.id = ${userId} and s.id = ${sessionId} and s.revoked_at is null and s.expires_at > ${now}`;
  return row;
}

/**
 * What a password sign-in needs, in one round trip: the account with its password hash (if the
 * email is registered) and whether the project requires verified emails.
 */
export async function findSignInCandidate(db: Queryable, email: string) {
  const [row] = await db<
    { requireEmailVerification: boolean; account: (User & { passwordHash: string | null }) | null }[]
  >`
    select c.require_email_verification as "requireEmailVerification",
      (select to_jsonb(x) from (
        select ${userColumns(db)}, p.password_hash as "passwordHash"
        from auth.user_records u join auth.users p on p.id = u.id
        where u.email = ${email}) x) as account
    from auth.config c`;
  if (!row) throw new Error('auth.config has no row');
  return row;
}

export interface NewUser {
  email: string;
  passwordHash: string | null;
  emailVerified: boolean;
  profile: Record<string, unknown>;
}

/** Inserts a user; undefined when the email is taken. */
export async function insertUser(db: Queryable, user: NewUser): Promise<User | undefined> {
  const [inserted] = await db<{ id: string }[]>`
    insert into auth.users (email, password_hash, email_verified, profile)
    values (${user.email}, ${user.passwordHash}, ${user.emailVerified}, ${jsonText(user.profile)}::text::jsonb)
    on conflict (email) do nothing
    returning id`;
  return inserted && findUserById(db, inserted.id);
}

export async function mergeProfile(
  db: Queryable,
  userId: string,
  profile: Record<string, unknown>,
  now: Date,
): Promise<{ id: string; profile: Record<string, unknown> } | undefined> {
  const [row] = await db<{ id: string; profile: Record<string, unknown> }[]>`
    update auth.users set profile = profile || ${jsonText(profile)}::text::jsonb, updated_at = ${now}
    where id = ${userId}
    returning id, profile`;
  return row;
}

export async function findProfile(db: Queryable, userId: string) {
  const [row] = await db<{ id: string; profile: Record<string, unknown> }[]>`
    select id, profile from auth.users where id = ${userId}`;
  return row;
}

const likePattern = (search: string) => `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** One page of users, newest first, with the total that match `search`. */
export async function listUsers(
  db: Queryable,
  page: { limit: number; offset: number; search?: string; anonymous?: boolean },
) {
  const pattern = page.search ? likePattern(page.search) : null;
  const anonymous = page.anonymous ?? null;
  const [row] = await db<{ total: number; data: User[] }[]>`
    with matched as (
      select * from auth.user_records u
      where (${pattern}::text is null or u.email ilike ${pattern} or u.profile ->> 'name' ilike ${pattern})
        and (${anonymous}::boolean is null or u.is_anonymous = ${anonymous}::boolean)
    ), paged as (
      select ${userColumns(db)}, u.created_at as sort_at
      from matched u order by u.created_at desc, u.id desc
      limit ${page.limit} offset ${page.offset}
    )
    select (select count(*) from matched)::int as total,
           coalesce((select json_agg(to_jsonb(p) - 'sort_at' order by p.sort_at desc, p.id desc) from paged p), '[]') as data`;
  return row ?? { total: 0, data: [] };
}

/** Deletes users (their sessions cascade) and names the sessions that were still live. */
export async function deleteUsers(
  db: Queryable,
  ids: string[],
): Promise<{ deletedCount: number; endedSessionIds: string[] }> {
  const [row] = await db<{ deletedCount: number; endedSessionIds: string[] }[]>`
    with ended as (
      select id from auth.sessions where user_id = any(${ids}::uuid[]) and revoked_at is null and expires_at > now()
    ), gone as (
      delete from auth.users where id = any(${ids}::uuid[]) returning id
    )
    select (select count(*) from gone)::int as "deletedCount",
           coalesce((select array_agg(id::text) from ended), '{}') as "endedSessionIds"`;
  return row!;
}

export async function findAccountByEmail(db: Queryable, email: string) {
  const [row] = await db<{ id: string; emailVerified: boolean; hasPassword: boolean }[]>`
    select id, email_verified as "emailVerified", password_hash is not null as "hasPassword"
    from auth.users where email = ${email}`;
  return row;
}

/** A verified user without a password, who signed up by an emailed code. */
export async function insertPasswordlessUser(db: Queryable, email: string, profile: Record<string, unknown>) {
  const [row] = await db<{ id: string }[]>`
    with created as (
      insert into auth.users (email, email_verified, profile)
      values (${email}, true, ${jsonText(profile)}::text::jsonb)
      on conflict (email) do nothing
      returning id
    ), provider as (
      insert into auth.user_providers (user_id, provider, provider_account_id, provider_data)
      select id, 'email', ${email}, '{"method":"otp"}'::jsonb from created
    )
    select id from created`;
  return row?.id;
}

/** Records that the user signs in by emailed code, so `providers` shows `email` without a password. */
export async function addEmailCodeProvider(db: Queryable, userId: string, email: string): Promise<void> {
  await db`
    insert into auth.user_providers (user_id, provider, provider_account_id, provider_data)
    values (${userId}, 'email', ${email}, '{"method":"otp"}'::jsonb)
    on conflict (provider, provider_account_id) do nothing`;
}

/** Marks the email verified; `clearPassword` makes the account passwordless (code sign-in). */
export async function markEmailVerified(db: Queryable, email: string, now: Date, clearPassword = false) {
  const [row] = await db<{ id: string }[]>`
    update auth.users
    set email_verified = true, is_anonymous = false, updated_at = ${now},
        password_hash = case when ${clearPassword} then null else password_hash end
    where email = ${email}
    returning id`;
  return row?.id;
}

export async function setPasswordHash(db: Queryable, email: string, passwordHash: string, now: Date) {
  const [row] = await db<{ id: string }[]>`
    update auth.users set password_hash = ${passwordHash}, email_verified = true, is_anonymous = false, updated_at = ${now}
    where email = ${email}
    returning id`;
  return row?.id;
}

/** Sets a signed-in user's password (by id); undefined when the user is gone. */
export async function setPasswordHashById(db: Queryable, userId: string, passwordHash: string, now: Date) {
  const [row] = await db<{ id: string }[]>`
    update auth.users set password_hash = ${passwordHash}, updated_at = ${now}
    where id = ${userId}
    returning id`;
  return row?.id;
}

/** Removes every provider account linked to the user (an unverified account taken over). */
export async function unlinkProviderAccounts(db: Queryable, userId: string) {
  await db`delete from auth.user_providers where user_id = ${userId}`;
}
