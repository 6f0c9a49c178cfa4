// One interface over the two kinds of provider: the nine built-ins (arctic's OAuth 2.0 client
// against each provider's endpoints, or the project's overrides) and custom OpenID Connect
// providers (openid-client with discovery). Each builds the authorization URL and turns a
// callback into the provider's profile of the account.
import type { OAuth2Tokens } from 'arctic';
import type * as Oidc from 'openid-client';
import { AppError } from '../../core/errors.js';
import { arctic, openidClient } from './libraries.js';
import { profileFromClaims, readProfile } from './profiles.js';
import { PROVIDER_SPECS, type BuiltInProvider, type ProviderProfile } from './providers.js';

export interface CallbackInput {
  /** The callback URL as the browser requested it (code, state, iss…). */
  url: URL;
  code: string;
  /** Apple posts the ID token and, on first consent, the user's name. */
  postedIdToken?: string;
  postedUser?: string;
}

export interface ProviderFlow {
  authorizationUrl(state: string, verifier: string, nonce: string): Promise<URL>;
  profile(
    callback: CallbackInput,
    checks: { state: string; verifier: string; nonce: string },
  ): Promise<ProviderProfile>;
}

export interface BuiltInSettings {
  clientId: string;
  clientSecret: string | null;
  scopes: string[] | null;
  callbackUrl: string;
  authorizationUrl: string | null;
  tokenUrl: string | null;
  userinfoUrl: string | null;
}

const upstream = (what: string, cause: unknown) =>
  new AppError('UPSTREAM_FAILURE', `${what}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });

/** Token request with the client secret in the form, for providers that refuse HTTP Basic. */
async function exchangeWithSecretInBody(tokenUrl: string, form: Record<string, string>): Promise<OAuth2Tokens> {
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok || typeof body.access_token !== 'string') {
    // OAuth's `{error: "invalid_grant"}`, or Facebook's Graph error `{error: {message, type, code}}`.
    const error =
      typeof body.error === 'object' && body.error !== null
        ? (body.error as { message?: unknown }).message
        : body.error;
    throw new Error(`token endpoint answered ${res.status} ${String(error ?? '')}`.trim());
  }
  return new (await arctic()).OAuth2Tokens(body);
}

function appleName(postedUser: string | undefined): string | undefined {
  if (!postedUser) return undefined;
  try {
    const { name } = JSON.parse(postedUser) as { name?: { firstName?: string; lastName?: string } };
    return [name?.firstName, name?.lastName].filter(Boolean).join(' ') || undefined;
  } catch {
    return undefined;
  }
}

export function builtInFlow(provider: BuiltInProvider, s: BuiltInSettings): ProviderFlow {
  const spec = PROVIDER_SPECS[provider];
  const authorizationUrl = s.authorizationUrl ?? spec.authorizationUrl;
  const tokenUrl = s.tokenUrl ?? spec.tokenUrl;
  const userinfoUrl = s.userinfoUrl ?? spec.userinfoUrl ?? '';
  const scopes = s.scopes ?? spec.scopes;
  const clientOf = async () => new (await arctic()).OAuth2Client(s.clientId, s.clientSecret, s.callbackUrl);

  return {
    async authorizationUrl(state, verifier, nonce) {
      const { CodeChallengeMethod } = await arctic();
      const client = await clientOf();
      const url = spec.pkce
        ? client.createAuthorizationURLWithPKCE(authorizationUrl, state, CodeChallengeMethod.S256, verifier, scopes)
        : client.createAuthorizationURL(authorizationUrl, state, scopes);
      if (scopes.includes('openid') || spec.profile === 'id-token') url.searchParams.set('nonce', nonce);
      if (spec.formPost) url.searchParams.set('response_mode', 'form_post');
      return url;
    },
    async profile(callback, checks) {
      let tokens: OAuth2Tokens;
      try {
        tokens =
          spec.tokenAuth === 'basic'
            ? await (await clientOf()).validateAuthorizationCode(
                tokenUrl,
                callback.code,
                spec.pkce ? checks.verifier : null,
              )
            : await exchangeWithSecretInBody(tokenUrl, {
                grant_type: 'authorization_code',
                code: callback.code,
                redirect_uri: s.callbackUrl,
                client_id: s.clientId,
                client_secret: s.clientSecret ?? '',
                ...(spec.pkce ? { code_verifier: checks.verifier } : {}),
              });
        // GitHub refuses a code with 200 and an `error` body, which arctic's generic client takes
        // for tokens (only its GitHub class checks for it).
        const refused = (tokens.data as Record<string, unknown>).error;
        if (typeof refused === 'string') throw new Error(`OAuth request error: ${refused}`);
      } catch (err) {
        throw upstream(`${provider} did not accept the authorization code`, err);
      }
      let profile: ProviderProfile;
      try {
        const idToken = 'id_token' in tokens.data ? tokens.idToken() : callback.postedIdToken;
        profile = await readProfile(spec.profile, { accessToken: tokens.accessToken(), idToken }, userinfoUrl);
      } catch (err) {
        // An unreachable user API or a malformed answer is the provider failing: the browser goes
        // back to the app with an error, not to a 500 page.
        if (err instanceof AppError) throw err;
        throw upstream(`${provider} did not describe the signed-in account`, err);
      }
      return provider === 'apple' ? { ...profile, name: profile.name ?? appleName(callback.postedUser) } : profile;
    },
  };
}

export interface CustomSettings {
  discoveryEndpoint: string;
  clientId: string;
  clientSecret: string;
  scopes: string[] | null;
  callbackUrl: string;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Flows of custom providers. Discovery runs once per endpoint and client, then its result is
 * kept (a failed discovery is tried again next time).
 */
export function createCustomFlows() {
  const discovered = new Map<string, Promise<Oidc.Configuration>>();

  function discover(s: CustomSettings): Promise<Oidc.Configuration> {
    const key = JSON.stringify([s.discoveryEndpoint, s.clientId, s.clientSecret]);
    let configuration = discovered.get(key);
    if (!configuration) {
      const url = new URL(s.discoveryEndpoint);
      configuration = openidClient().then((oidc) => {
        // Plain http only for identity providers on this machine (development and tests).
        const execute = url.protocol === 'http:' && LOOPBACK.has(url.hostname) ? [oidc.allowInsecureRequests] : [];
        return oidc.discovery(url, s.clientId, s.clientSecret, undefined, { execute, timeout: 10 });
      });
      configuration.catch(() => discovered.delete(key));
      discovered.set(key, configuration);
    }
    return configuration;
  }

  return (key: string, s: CustomSettings): ProviderFlow => customFlow(key, s, discover);
}

function customFlow(
  key: string,
  s: CustomSettings,
  discover: (s: CustomSettings) => Promise<Oidc.Configuration>,
): ProviderFlow {
  const scopes = (s.scopes ?? ['openid', 'email', 'profile']).join(' ');
  return {
    async authorizationUrl(state, verifier, nonce) {
      const configuration = await discover(s).catch((err) => {
        throw upstream(`Discovery of ${key} failed`, err);
      });
      const oidc = await openidClient();
      return oidc.buildAuthorizationUrl(configuration, {
        redirect_uri: s.callbackUrl,
        scope: scopes,
        state,
        nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
    },
    async profile(callback, checks) {
      try {
        const configuration = await discover(s);
        const oidc = await openidClient();
        const tokens = await oidc.authorizationCodeGrant(configuration, callback.url, {
          pkceCodeVerifier: checks.verifier,
          expectedState: checks.state,
          expectedNonce: checks.nonce,
          idTokenExpected: true,
        });
        const claims: Record<string, unknown> = tokens.claims() ?? {};
        const userinfo = await oidc.fetchUserInfo(configuration, tokens.access_token, String(claims.sub));
        return profileFromClaims({ ...claims, ...userinfo });
      } catch (err) {
        if (err instanceof AppError) throw err;
        throw upstream(`${key} sign-in failed`, err);
      }
    },
  };
}
