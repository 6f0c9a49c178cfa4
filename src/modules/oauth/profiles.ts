// Reads the signed-in account from a provider: standard OIDC userinfo, the ID token the token
// endpoint returned, or a provider's own user API.
import { AppError } from '../../core/errors.js';
import { arctic } from './libraries.js';
import type { ProfileSource, ProviderProfile } from './providers.js';

const TIMEOUT_MS = 10_000;

export async function fetchJson(url: string, accessToken: string): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json', 'user-agent': 'Plinth' },
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (!res.ok) throw new AppError('UPSTREAM_FAILURE', `The provider's user API answered ${res.status}.`);
  return (await res.json()) as Record<string, unknown>;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
const truthy = (v: unknown): boolean => v === true || v === 'true';
const id = (v: unknown): string => {
  if (typeof v === 'string' && v) return v;
  if (typeof v === 'number') return String(v);
  throw new AppError('UPSTREAM_FAILURE', 'The provider did not say which account signed in.');
};

/** Standard OpenID Connect claims (userinfo or ID token). */
export function profileFromClaims(claims: Record<string, unknown>): ProviderProfile {
  return {
    accountId: id(claims.sub),
    email: text(claims.email)?.toLowerCase(),
    emailVerified: truthy(claims.email_verified),
    name: text(claims.name),
    avatarUrl: text(claims.picture),
  };
}

interface Tokens {
  accessToken: string;
  idToken?: string;
}

type Reader = (tokens: Tokens, userinfoUrl: string) => Promise<ProviderProfile>;

const readers: Record<ProfileSource, Reader> = {
  oidc: async (t, url) => profileFromClaims(await fetchJson(url, t.accessToken)),
  'id-token': async (t) => {
    if (!t.idToken) throw new AppError('UPSTREAM_FAILURE', 'The provider returned no ID token.');
    // Received straight from the token endpoint over TLS, so the issuer is the one we called.
    const { decodeIdToken } = await arctic();
    return profileFromClaims(decodeIdToken(t.idToken) as Record<string, unknown>);
  },
  github: async (t, url) => {
    const user = await fetchJson(url, t.accessToken);
    const emails = (await fetchJson(`${url.replace(/\/$/, '')}/emails`, t.accessToken).catch(() => [])) as unknown;
    const primary = Array.isArray(emails)
      ? (emails as { email?: string; primary?: boolean; verified?: boolean }[]).find((e) => e.primary && e.verified)
      : undefined;
    return {
      accountId: id(user.id),
      email: (primary?.email ?? text(user.email))?.toLowerCase(),
      emailVerified: primary !== undefined,
      name: text(user.name) ?? text(user.login),
      avatarUrl: text(user.avatar_url),
    };
  },
  discord: async (t, url) => {
    const user = await fetchJson(url, t.accessToken);
    const avatar = text(user.avatar);
    return {
      accountId: id(user.id),
      email: text(user.email)?.toLowerCase(),
      emailVerified: truthy(user.verified),
      name: text(user.global_name) ?? text(user.username),
      avatarUrl: avatar ? `https://cdn.discordapp.com/avatars/${id(user.id)}/${avatar}.png` : undefined,
    };
  },
  facebook: async (t, url) => {
    const user = await fetchJson(url, t.accessToken);
    const picture = (user.picture as { data?: { url?: string } } | undefined)?.data?.url;
    // Facebook only shares addresses its users confirmed.
    return {
      accountId: id(user.id),
      email: text(user.email)?.toLowerCase(),
      emailVerified: Boolean(text(user.email)),
      name: text(user.name),
      avatarUrl: text(picture),
    };
  },
  x: async (t, url) => {
    const user = ((await fetchJson(url, t.accessToken)).data ?? {}) as Record<string, unknown>;
    const email = text(user.confirmed_email)?.toLowerCase();
    return {
      accountId: id(user.id),
      email,
      emailVerified: email !== undefined,
      name: text(user.name) ?? text(user.username),
      avatarUrl: text(user.profile_image_url),
    };
  },
  spotify: async (t, url) => {
    const user = await fetchJson(url, t.accessToken);
    const images = user.images as { url?: string }[] | undefined;
    // Spotify does not verify addresses: never enough to take over an account by email.
    return {
      accountId: id(user.id),
      email: text(user.email)?.toLowerCase(),
      emailVerified: false,
      name: text(user.display_name),
      avatarUrl: text(images?.[0]?.url),
    };
  },
};

export const readProfile = (source: ProfileSource, tokens: Tokens, userinfoUrl: string) =>
  readers[source](tokens, userinfoUrl);
