// SQL of OAuth sign-in: provider accounts linked to users, and the single-use svc_codes.
import type { Queryable } from '../../core/db.js';
import { jsonText } from '../../core/json-guard.js';

export async function findUserIdByProviderAccount(db: Queryable, provider: string, accountId: string) {
  const [row] = await db<{ userId: string }[]>`
    select user_id as "userId" from auth.user_providers
    where provider = ${provider} and provider_account_id = ${accountId}`;
  return row?.userId;
}

export async function linkProviderAccount(
  db: Queryable,
  link: { userId: string; provider: string; accountId: string; data: Record<string, unknown>; now: Date },
) {
  await db`
    insert into auth.user_providers (user_id, provider, provider_account_id, provider_data, created_at, updated_at)
    values (${link.userId}, ${link.provider}, ${link.accountId}, ${jsonText(link.data)}::text::jsonb, ${link.now}, ${link.now})
    on conflict (provider, provider_account_id) do nothing`;
}

/** A user created by a provider sign-in (no password); undefined when the email is taken. */
export async function insertProviderUser(
  db: Queryable,
  user: { email: string; emailVerified: boolean; profile: Record<string, unknown> },
) {
  const [row] = await db<{ id: string }[]>`
    insert into auth.users (email, email_verified, profile)
    values (${user.email}, ${user.emailVerified}, ${jsonText(user.profile)}::text::jsonb)
    on conflict (email) do nothing
    returning id`;
  return row?.id;
}

export async function insertExchangeCode(
  db: Queryable,
  c: { codeHash: Buffer; userId: string; codeChallenge: string; expiresAt: Date; now: Date },
) {
  await db`
    insert into auth.oauth_exchange_codes (code_hash, user_id, code_challenge, expires_at, created_at)
    values (${c.codeHash}, ${c.userId}, ${c.codeChallenge}, ${c.expiresAt}, ${c.now})`;
}

/** Spends a svc_code: its user and PKCE challenge, once, before it expires. */
export async function consumeExchangeCode(db: Queryable, codeHash: Buffer, now: Date) {
  const [row] = await db<{ userId: string; codeChallenge: string }[]>`
    update auth.oauth_exchange_codes set consumed_at = ${now}
    where code_hash = ${codeHash} and consumed_at is null and expires_at > ${now} and link_provider is null
    returning user_id as "userId", code_challenge as "codeChallenge"`;
  return row;
}

/** A link flow's svc_code: it names the user to link to and the provider account to link. */
export async function insertLinkCode(
  db: Queryable,
  c: {
    codeHash: Buffer;
    userId: string;
    codeChallenge: string;
    expiresAt: Date;
    now: Date;
    provider: string;
    accountId: string;
    data: Record<string, unknown>;
  },
) {
  await db`
    insert into auth.oauth_exchange_codes
      (code_hash, user_id, code_challenge, expires_at, created_at, link_provider, link_account_id, link_data)
    values (${c.codeHash}, ${c.userId}, ${c.codeChallenge}, ${c.expiresAt}, ${c.now}, ${c.provider}, ${c.accountId},
      ${jsonText(c.data)}::text::jsonb)`;
}

/** Spends a link code, once, before it expires, and only for the user it was made for. */
export async function consumeLinkCode(db: Queryable, codeHash: Buffer, userId: string, now: Date) {
  const [row] = await db<
    {
      codeChallenge: string;
      provider: string;
      accountId: string;
      data: { data: Record<string, unknown>; verifiedEmail: string | null };
    }[]
  >`
    update auth.oauth_exchange_codes set consumed_at = ${now}
    where code_hash = ${codeHash} and consumed_at is null and expires_at > ${now}
      and link_provider is not null and user_id = ${userId}
    returning code_challenge as "codeChallenge", link_provider as provider, link_account_id as "accountId",
      link_data as data`;
  return row;
}
