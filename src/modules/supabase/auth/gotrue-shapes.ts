// Plinth's users and sessions in GoTrue's wire shapes (what auth-js reads): the user object, the
// session object, and the admin list's pagination headers.
import { type Clock, epochSeconds } from '../../../core/clock.js';
import type { User } from '../../auth/index.js';

export interface GoTrueUser {
  id: string;
  aud: 'authenticated';
  role: 'authenticated';
  email: string;
  email_confirmed_at: string | null;
  confirmed_at: string | null;
  phone: string;
  app_metadata: { provider: string; providers: string[] };
  user_metadata: Record<string, unknown>;
  identities: { provider: string; identity_id: string; user_id: string; id: string }[];
  created_at: string;
  updated_at: string;
  is_anonymous: boolean;
  /** GoTrue omits the list when the user has no factors. */
  factors?: GoTrueFactor[];
}

export interface GoTrueFactor {
  id: string;
  friendly_name: string;
  factor_type: string;
  status: string;
  created_at: string;
  updated_at: string;
}

/** One of Plinth's MFA factors (its public view) as GoTrue lists it on the user. */
export function toGoTrueFactor(f: {
  id: string;
  type: string;
  friendlyName: string;
  status: string;
  createdAt: string;
  updatedAt: string;
}): GoTrueFactor {
  return {
    id: f.id,
    friendly_name: f.friendlyName,
    factor_type: f.type,
    status: f.status,
    created_at: f.createdAt,
    updated_at: f.updatedAt,
  };
}

/**
 * A Plinth user as GoTrue shows one. Plinth keeps no verification time, so a verified email's
 * `email_confirmed_at` is the account's last update (a non-null time is what clients test).
 */
export function toGoTrueUser(user: User, factors: GoTrueFactor[] = []): GoTrueUser {
  const confirmedAt = user.emailVerified ? user.updatedAt : null;
  return {
    id: user.id,
    aud: 'authenticated',
    role: 'authenticated',
    email: user.email ?? '',
    email_confirmed_at: confirmedAt,
    confirmed_at: confirmedAt,
    phone: '',
    app_metadata: { provider: user.providers[0] ?? 'email', providers: user.providers },
    user_metadata: user.profile,
    identities: user.providers.map((provider) => ({
      provider,
      id: provider === 'email' ? user.id : `${provider}:${user.id}`,
      identity_id: `${provider}:${user.id}`,
      user_id: user.id,
    })),
    created_at: user.createdAt,
    updated_at: user.updatedAt,
    is_anonymous: user.isAnonymous,
    ...(factors.length > 0 ? { factors } : {}),
  };
}

/** GoTrue's session answer: the access token's lifetime from now, and the user. */
export function toGoTrueSession(
  session: { user: User; tokens: { accessToken: string; refreshToken: string } },
  ttlSeconds: number,
  clock: Clock,
  factors: GoTrueFactor[] = [],
) {
  return {
    access_token: session.tokens.accessToken,
    token_type: 'bearer' as const,
    expires_in: ttlSeconds,
    expires_at: epochSeconds(clock.now()) + ttlSeconds,
    refresh_token: session.tokens.refreshToken,
    user: toGoTrueUser(session.user, factors),
  };
}

/** GoTrue's Link header for the admin user list (auth-js reads `page=N` and rel from it). */
export function paginationLink(baseUrl: string, page: number, perPage: number, total: number): string {
  const last = Math.max(1, Math.ceil(total / perPage));
  const link = (p: number, rel: string) =>
    `<${baseUrl}/auth/v1/admin/users?page=${p}&per_page=${perPage}>; rel="${rel}"`;
  const links = page < last ? [link(page + 1, 'next')] : [];
  links.push(link(last, 'last'));
  return links.join(', ');
}
