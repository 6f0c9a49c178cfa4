// Native ID-token sign-in (Google, Apple): the token from the platform's sign-in framework is
// verified against the provider's JWKS, issuer, audience (clientId or a nativeClientId) and
// expiry; for Apple, the SHA-256 of the raw nonce must be the token's nonce claim.
import { createHash } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { AppError } from '../../core/errors.js';
import { createRateLimiter } from '../../core/rate-limiter.js';
import type { Deps } from '../../deps.js';
import { authLimits, findUserById, type SessionService } from '../auth/index.js';
import { jose } from './libraries.js';
import { findOAuthConfig } from './oauth-config.repo.js';
import { resolveAccount } from './oauth-accounts.js';
import { profileFromClaims } from './profiles.js';
import { PROVIDER_SPECS } from './providers.js';

export interface IdTokenSignIn {
  provider: 'google' | 'apple';
  token: string;
  nonce?: string;
  name?: string;
}

const unverified = (reason: string) =>
  new AppError('UNAUTHORIZED', `The ID token could not be verified: ${reason}.`, {
    nextActions: 'Sign in with the provider again to get a fresh ID token.',
  });

export function createIdTokenService(deps: Pick<Deps, 'sql' | 'clock'>, sessions: SessionService) {
  const limiter = createRateLimiter(deps.sql, deps.clock);
  const keySetOf = async (url: string) => (await jose()).createRemoteJWKSet(new URL(url), { timeoutDuration: 10_000 });
  const keySets = new Map<string, Awaited<ReturnType<typeof keySetOf>>>();
  const keySetAt = async (url: string) => {
    let keySet = keySets.get(url);
    if (!keySet) {
      keySet = await keySetOf(url);
      keySets.set(url, keySet);
    }
    return keySet;
  };

  async function verify(input: IdTokenSignIn): Promise<JWTPayload> {
    const config = await findOAuthConfig(deps.sql, input.provider);
    if (!config) {
      throw new AppError('AUTH_OAUTH_CONFIG_NOT_FOUND', `${input.provider} sign-in is not configured.`, {
        nextActions: 'The project admin must configure the provider (clientId, nativeClientIds) first.',
      });
    }
    const spec = PROVIDER_SPECS[input.provider];
    let payload: JWTPayload;
    try {
      const { jwtVerify } = await jose();
      ({ payload } = await jwtVerify(input.token, await keySetAt(config.jwksUrl ?? spec.jwksUrl!), {
        issuer: config.issuer ? [config.issuer] : spec.issuers,
        audience: [config.clientId, ...config.nativeClientIds],
        currentDate: deps.clock.now(),
        algorithms: ['RS256', 'ES256'],
      }));
    } catch (err) {
      throw unverified(err instanceof Error ? err.message : 'invalid token');
    }
    if (input.provider === 'apple') {
      const expected = createHash('sha256')
        .update(input.nonce ?? '')
        .digest('hex');
      if (payload.nonce !== expected) throw unverified('the nonce does not match');
    }
    return payload;
  }

  return {
    async signIn(input: IdTokenSignIn, ip: string) {
      await limiter.hit(authLimits.idTokenPerIp, ip);
      const claims = await verify(input);
      const profile = profileFromClaims(claims as Record<string, unknown>);
      // An address the provider did not verify is neither used nor trusted.
      const trusted = profile.emailVerified ? profile : { ...profile, email: undefined };
      const userId = await resolveAccount(deps, input.provider, { ...trusted, name: input.name ?? profile.name });
      const user = await findUserById(deps.sql, userId);
      if (!user) throw new AppError('AUTH_USER_NOT_FOUND');
      return { user, tokens: await sessions.open({ user }, 'oauth') };
    },
  };
}

export type IdTokenService = ReturnType<typeof createIdTokenService>;
