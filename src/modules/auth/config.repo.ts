// SQL for the singleton auth.config row.
import type { Queryable } from '../../core/db.js';
import type { AuthConfig } from './auth.schemas.js';

const columns = {
  requireEmailVerification: 'require_email_verification',
  passwordMinLength: 'password_min_length',
  requireNumber: 'require_number',
  requireLowercase: 'require_lowercase',
  requireUppercase: 'require_uppercase',
  requireSpecialChar: 'require_special_char',
  verifyEmailMethod: 'verify_email_method',
  resetPasswordMethod: 'reset_password_method',
  allowedRedirectUrls: 'allowed_redirect_urls',
  disableSignup: 'disable_signup',
  anonymousSignInsEnabled: 'anonymous_sign_ins_enabled',
  anonymousRetentionDays: 'anonymous_retention_days',
  linkOAuthByEmail: 'link_oauth_by_email',
} as const;

export type AuthConfigChanges = Partial<Omit<AuthConfig, 'id' | 'createdAt' | 'updatedAt'>>;

const select = (db: Queryable) => db`
  id,
  ${db.unsafe(
    Object.entries(columns)
      .map(([field, col]) => `${col} as "${field}"`)
      .join(', '),
  )},
  to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt",
  to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "updatedAt"`;

export async function readAuthConfig(db: Queryable): Promise<AuthConfig> {
  const [row] = await db<AuthConfig[]>`select ${select(db)} from auth.config`;
  if (!row) throw new Error('auth.config has no row');
  return row;
}

export async function updateAuthConfig(db: Queryable, changes: AuthConfigChanges, now: Date): Promise<AuthConfig> {
  const entries = Object.entries(changes).filter(([, v]) => v !== undefined) as [keyof typeof columns, unknown][];
  if (entries.length === 0) return readAuthConfig(db);
  const values = Object.fromEntries(entries.map(([field, value]) => [columns[field], value]));
  const [row] = await db<AuthConfig[]>`
    update auth.config set ${db(values as never)}, updated_at = ${now}
    returning ${select(db)}`;
  if (!row) throw new Error('auth.config has no row');
  return row;
}
