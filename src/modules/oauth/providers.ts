// The nine built-in OAuth providers: their endpoints (overridable per project, for self-hosted
// identity providers and tests), scopes, how their token endpoint wants the client to
// authenticate, and how their user API describes the signed-in account.

export const BUILT_IN_PROVIDERS = [
  'google',
  'github',
  'discord',
  'linkedin',
  'facebook',
  'apple',
  'microsoft',
  'x',
  'spotify',
] as const;
export type BuiltInProvider = (typeof BUILT_IN_PROVIDERS)[number];

export const isBuiltInProvider = (key: string): key is BuiltInProvider =>
  (BUILT_IN_PROVIDERS as readonly string[]).includes(key);

/** What Plinth learns about the account a provider signed in. */
export interface ProviderProfile {
  accountId: string;
  email?: string;
  emailVerified: boolean;
  name?: string;
  avatarUrl?: string;
}

/** How the profile is read: standard OIDC claims, or a provider's own user API. */
export type ProfileSource = 'oidc' | 'id-token' | 'github' | 'discord' | 'facebook' | 'x' | 'spotify';

export interface ProviderSpec {
  authorizationUrl: string;
  tokenUrl: string;
  /** The user API (for 'oidc', the userinfo endpoint). */
  userinfoUrl?: string;
  /** For ID-token sign-in and 'id-token' profiles. */
  jwksUrl?: string;
  issuers?: string[];
  scopes: string[];
  pkce: boolean;
  /** 'basic': HTTP Basic client authentication; 'body': client_secret in the form. */
  tokenAuth: 'basic' | 'body';
  profile: ProfileSource;
  /** Apple posts the callback as a form (response_mode=form_post). */
  formPost?: boolean;
}

export const PROVIDER_SPECS: Record<BuiltInProvider, ProviderSpec> = {
  google: {
    authorizationUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenUrl: 'https://oauth2.googleapis.com/token',
    userinfoUrl: 'https://openidconnect.googleapis.com/v1/userinfo',
    jwksUrl: 'https://www.googleapis.com/oauth2/v3/certs',
    issuers: ['https://accounts.google.com', 'accounts.google.com'],
    scopes: ['openid', 'email', 'profile'],
    pkce: true,
    tokenAuth: 'basic',
    profile: 'oidc',
  },
  github: {
    authorizationUrl: 'https://github.com/login/oauth/authorize',
    tokenUrl: 'https://github.com/login/oauth/access_token',
    userinfoUrl: 'https://api.github.com/user',
    scopes: ['read:user', 'user:email'],
    pkce: true,
    tokenAuth: 'basic',
    profile: 'github',
  },
  discord: {
    authorizationUrl: 'https://discord.com/oauth2/authorize',
    tokenUrl: 'https://discord.com/api/oauth2/token',
    userinfoUrl: 'https://discord.com/api/users/@me',
    scopes: ['identify', 'email'],
    pkce: true,
    tokenAuth: 'basic',
    profile: 'discord',
  },
  linkedin: {
    authorizationUrl: 'https://www.linkedin.com/oauth/v2/authorization',
    tokenUrl: 'https://www.linkedin.com/oauth/v2/accessToken',
    userinfoUrl: 'https://api.linkedin.com/v2/userinfo',
    scopes: ['openid', 'profile', 'email'],
    pkce: false,
    tokenAuth: 'body',
    profile: 'oidc',
  },
  facebook: {
    authorizationUrl: 'https://www.facebook.com/v19.0/dialog/oauth',
    tokenUrl: 'https://graph.facebook.com/v19.0/oauth/access_token',
    userinfoUrl: 'https://graph.facebook.com/me?fields=id,name,email,picture',
    scopes: ['email', 'public_profile'],
    pkce: true,
    tokenAuth: 'body',
    profile: 'facebook',
  },
  apple: {
    authorizationUrl: 'https://appleid.apple.com/auth/authorize',
    tokenUrl: 'https://appleid.apple.com/auth/token',
    jwksUrl: 'https://appleid.apple.com/auth/keys',
    issuers: ['https://appleid.apple.com'],
    scopes: ['name', 'email'],
    pkce: true,
    tokenAuth: 'body',
    profile: 'id-token',
    formPost: true,
  },
  microsoft: {
    authorizationUrl: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
    tokenUrl: 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
    userinfoUrl: 'https://graph.microsoft.com/oidc/userinfo',
    scopes: ['openid', 'email', 'profile'],
    pkce: true,
    tokenAuth: 'basic',
    profile: 'oidc',
  },
  x: {
    authorizationUrl: 'https://x.com/i/oauth2/authorize',
    tokenUrl: 'https://api.x.com/2/oauth2/token',
    userinfoUrl: 'https://api.x.com/2/users/me?user.fields=profile_image_url,confirmed_email',
    scopes: ['users.read', 'tweet.read', 'users.email'],
    pkce: true,
    tokenAuth: 'basic',
    profile: 'x',
  },
  spotify: {
    authorizationUrl: 'https://accounts.spotify.com/authorize',
    tokenUrl: 'https://accounts.spotify.com/api/token',
    userinfoUrl: 'https://api.spotify.com/v1/me',
    scopes: ['user-read-email', 'user-read-private'],
    pkce: true,
    tokenAuth: 'basic',
    profile: 'spotify',
  },
};
