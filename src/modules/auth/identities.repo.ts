// SQL of a user's identities: the password (a column of auth.users) and the provider accounts
// linked in auth.user_providers (email codes, each OAuth provider; SSO and passkeys add theirs).
import type { Queryable } from '../../core/db.js';
import { jsonText } from '../../core/json-guard.js';

export interface IdentityRow {
  id: string;
  provider: string;
  providerAccountId: string;
  email: string | null;
  createdAt: string;
  updatedAt: string;
}

const iso = (db: Queryable, column: string) =>
  db.unsafe(`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

/** The password identity (id "password") first, then the linked accounts, oldest first. */
export async function listIdentities(db: Queryable, userId: string): Promise<IdentityRow[]> {
  return db<IdentityRow[]>`
    select 'password' as id, 'email' as provider, coalesce(u.email, '') as "providerAccountId", u.email,
      ${iso(db, 'u.created_at')} as "createdAt", ${iso(db, 'u.updated_at')} as "updatedAt", 0 as rank,
      u.created_at as sort_at
    from auth.users u where u.id = ${userId} and u.password_hash is not null
    union all
    select p.id::text, p.provider, p.provider_account_id, p.provider_data ->> 'email',
      ${iso(db, 'p.created_at')}, ${iso(db, 'p.updated_at')}, 1, p.created_at
    from auth.user_providers p where p.user_id = ${userId}
    order by rank, sort_at, id`.then((rows) =>
    rows.map(({ rank: _r, sort_at: _s, ...row }: IdentityRow & { rank?: number; sort_at?: Date }) => row),
  );
}

/** Removes one linked account of the user; false when the user has no such identity. */
export async function deleteProviderIdentity(db: Queryable, userId: string, identityId: string): Promise<boolean> {
  return (await db`delete from auth.user_providers where id = ${identityId} and user_id = ${userId}`).count > 0;
}

export async function clearPassword(db: Queryable, userId: string, now: Date): Promise<boolean> {
  return (
    (
      await db`update auth.users set password_hash = null, updated_at = ${now}
             where id = ${userId} and password_hash is not null`
    ).count > 0
  );
}

export async function findProviderAccountOwner(db: Queryable, provider: string, accountId: string) {
  const [row] = await db<{ userId: string }[]>`
    select user_id as "userId" from auth.user_providers
    where provider = ${provider} and provider_account_id = ${accountId}`;
  return row?.userId;
}

export async function insertProviderIdentity(
  db: Queryable,
  link: { userId: string; provider: string; accountId: string; data: Record<string, unknown>; now: Date },
): Promise<boolean> {
  const inserted = await db`
    insert into auth.user_providers (user_id, provider, provider_account_id, provider_data, created_at, updated_at)
    values (${link.userId}, ${link.provider}, ${link.accountId}, ${jsonText(link.data)}::text::jsonb, ${link.now}, ${link.now})
    on conflict (provider, provider_account_id) do nothing`;
  return inserted.count > 0;
}
