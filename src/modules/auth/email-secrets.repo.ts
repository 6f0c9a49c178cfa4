// SQL for auth.email_otps: the one live code or link token per (email, purpose).
import type { Queryable } from '../../core/db.js';

export type SecretPurpose =
  | 'SIGN_IN'
  | 'VERIFY_EMAIL'
  | 'RESET_PASSWORD'
  | 'RESET_TOKEN'
  // Links an admin generates or an invitation sends (email-links.service.ts).
  | 'SIGN_IN_LINK'
  | 'SIGN_UP_LINK'
  | 'INVITE_LINK'
  | 'RECOVERY_LINK';

export interface StoredSecret {
  email: string;
  purpose: SecretPurpose;
  kind: 'code' | 'link';
  secretHash: Buffer;
  redirectTo: string | null;
  expiresAt: Date;
  now: Date;
}

/** Stores a new code or token, replacing the previous one and its attempt count. */
export async function storeEmailSecret(db: Queryable, s: StoredSecret): Promise<void> {
  await db`
    insert into auth.email_otps (email, purpose, kind, secret_hash, redirect_to, attempts, expires_at, created_at)
    values (${s.email}, ${s.purpose}, ${s.kind}, ${s.secretHash}, ${s.redirectTo}, 0, ${s.expiresAt}, ${s.now})
    on conflict (email, purpose) do update set
      kind = excluded.kind, secret_hash = excluded.secret_hash, redirect_to = excluded.redirect_to,
      attempts = 0, expires_at = excluded.expires_at, consumed_at = null, created_at = excluded.created_at`;
}

export interface Consumption {
  outcome: 'ok' | 'invalid';
  /** The secret's email and redirect, when a row was found (even for 'invalid'). */
  email: string | null;
  redirectTo: string | null;
}

/** Checks and consumes a secret (see auth.consume_email_secret); `email` null = by hash alone. */
export async function consumeEmailSecret(
  db: Queryable,
  c: { email: string | null; purpose: SecretPurpose; secretHash: Buffer; now: Date; maxAttempts: number },
): Promise<Consumption> {
  const [row] = await db<Consumption[]>`
    select outcome, email, redirect_to as "redirectTo"
    from auth.consume_email_secret(${c.email}, ${c.purpose}, ${c.secretHash}, ${c.now}, ${c.maxAttempts})`;
  return row ?? { outcome: 'invalid', email: null, redirectTo: null };
}

/** A link token's row without consuming it: whether it is usable now, and where it redirects. */
export async function peekLinkSecret(db: Queryable, purpose: SecretPurpose, secretHash: Buffer, now: Date) {
  const [row] = await db<{ email: string; redirectTo: string | null; usable: boolean }[]>`
    select email, redirect_to as "redirectTo", (consumed_at is null and expires_at > ${now}) as usable
    from auth.email_otps where secret_hash = ${secretHash} and purpose = ${purpose}`;
  return row;
}
