// OAuth sign-in with PKCE: initiation (authorization URL with an encrypted state), the
// provider's callback (the account found, linked by verified email, or created; then a svc_code
// for the app), and the exchange of svc_code + code_verifier for a session.
import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../core/errors.js';
import { randomToken, sha256 } from '../../core/ids.js';
import type { Deps } from '../../deps.js';
import { assertRedirectAllowed, findUserById, readAuthConfig, type SessionService, withParams } from '../auth/index.js';
import { findCustomConfig, findOAuthConfig } from './oauth-config.repo.js';
import { resolveAccount } from './oauth-accounts.js';
import * as repo from './oauth.repo.js';
import { builtInFlow, createCustomFlows, type CallbackInput, type ProviderFlow } from './provider-flows.js';
import type { BuiltInProvider } from './providers.js';

export type ProviderRef = { kind: 'builtin'; provider: BuiltInProvider } | { kind: 'custom'; key: string };

/** What travels (encrypted) through the browser from initiation to callback. */
interface OAuthState {
  provider: string;
  redirectUri: string;
  codeChallenge: string;
  verifier: string;
  nonce: string;
  expiresAt: number;
}

const STATE_TTL_MS = 10 * 60 * 1000;
const CODE_TTL_MS = 5 * 60 * 1000;
// Parameters Plinth sets itself; a client's values for them are ignored, never forwarded.
const RESERVED_PARAMS = new Set([
  'client_id',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
  'state',
  'response_type',
  'scope',
  'nonce',
  'response_mode',
]);

const providerKey = (ref: ProviderRef) => (ref.kind === 'builtin' ? ref.provider : ref.key);
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

const invalidState = () =>
  new AppError('VALIDATION_ERROR', 'Invalid or expired OAuth state.', {
    nextActions: 'Start the sign-in again from the app.',
  });

export type OAuthService = ReturnType<typeof createOAuthService>;

export function createOAuthService(deps: Pick<Deps, 'sql' | 'clock' | 'config' | 'keyring'>, sessions: SessionService) {
  const customFlows = createCustomFlows();
  const callbackUrlOf = (ref: ProviderRef) =>
    ref.kind === 'builtin'
      ? `${deps.config.apiBaseUrl}/api/auth/oauth/${ref.provider}/callback`
      : `${deps.config.apiBaseUrl}/api/auth/oauth/custom/${ref.key}/callback`;

  async function flowFor(ref: ProviderRef): Promise<ProviderFlow> {
    const open = (sealed: string | null) => (sealed ? deps.keyring.open(sealed) : null);
    if (ref.kind === 'builtin') {
      const config = await findOAuthConfig(deps.sql, ref.provider);
      if (!config) throw notConfigured(ref.provider);
      return builtInFlow(ref.provider, {
        ...config,
        clientSecret: open(config.clientSecretCiphertext),
        callbackUrl: config.redirectUri ?? callbackUrlOf(ref),
      });
    }
    const config = await findCustomConfig(deps.sql, ref.key);
    if (!config) throw notConfigured(ref.key);
    return customFlows(ref.key, {
      ...config,
      clientSecret: open(config.clientSecretCiphertext)!,
      callbackUrl: callbackUrlOf(ref),
    });
  }

  function readState(sealed: string | undefined, ref: ProviderRef): OAuthState {
    if (!sealed) throw invalidState();
    let state: OAuthState;
    try {
      state = JSON.parse(deps.keyring.open(sealed)) as OAuthState;
    } catch {
      throw invalidState();
    }
    if (state.provider !== providerKey(ref) || state.expiresAt <= deps.clock.now().getTime()) throw invalidState();
    return state;
  }

  return {
    /** The provider's authorization URL; `hints` that do not collide are forwarded to it. */
    async initiate(ref: ProviderRef, redirectUri: string, codeChallenge: string, hints: Record<string, unknown>) {
      assertRedirectAllowed(redirectUri, (await readAuthConfig(deps.sql)).allowedRedirectUrls);
      const flow = await flowFor(ref);
      const state: OAuthState = {
        provider: providerKey(ref),
        redirectUri,
        codeChallenge,
        verifier: randomBytes(32).toString('base64url'),
        nonce: randomBytes(16).toString('base64url'),
        expiresAt: deps.clock.now().getTime() + STATE_TTL_MS,
      };
      const url = await flow.authorizationUrl(deps.keyring.seal(JSON.stringify(state)), state.verifier, state.nonce);
      for (const [name, value] of Object.entries(hints)) {
        if (typeof value === 'string' && !RESERVED_PARAMS.has(name) && !url.searchParams.has(name)) {
          url.searchParams.set(name, value);
        }
      }
      return url.toString();
    },

    /**
     * Where the provider's callback sends the browser: the app's redirect with a svc_code, or
     * with `error` when the provider or the sign-in failed. A bad state is a 400 (no redirect
     * can be trusted then).
     */
    async callback(
      ref: ProviderRef,
      input: Omit<CallbackInput, 'code'> & { code?: string; state?: string; error?: string; errorDescription?: string },
    ) {
      const state = readState(input.state, ref);
      if (input.error || !input.code) {
        return withParams(state.redirectUri, {
          error: input.errorDescription ?? input.error ?? 'The provider returned no authorization code.',
        });
      }
      try {
        const flow = await flowFor(ref);
        const profile = await flow.profile(
          { ...input, code: input.code },
          { state: input.state!, verifier: state.verifier, nonce: state.nonce },
        );
        const userId = await resolveAccount(deps, providerKey(ref), profile);
        const code = randomToken();
        await repo.insertExchangeCode(deps.sql, {
          codeHash: sha256(code),
          userId,
          codeChallenge: state.codeChallenge,
          expiresAt: new Date(deps.clock.now().getTime() + CODE_TTL_MS),
          now: deps.clock.now(),
        });
        // insforge_code: the name the official client hard-codes for its automatic exchange on
        // page load (api-contract Part A item 14), sent beside the spec's svc_code.
        return withParams(state.redirectUri, { svc_code: code, insforge_code: code });
      } catch (err) {
        if (!(err instanceof AppError) || (err.statusCode >= 500 && err.code !== 'UPSTREAM_FAILURE')) throw err;
        return withParams(state.redirectUri, { error: err.message });
      }
    },

    /** Trades a svc_code and the PKCE verifier (S256 of it must be the initiation's challenge) for a session. */
    async exchange(code: string, verifier: string) {
      const spent = await repo.consumeExchangeCode(deps.sql, sha256(code), deps.clock.now());
      if (!spent)
        throw new AppError('VALIDATION_ERROR', 'Invalid or expired code.', { nextActions: 'Start the sign-in again.' });
      if (s256(verifier) !== spent.codeChallenge) {
        throw new AppError(
          'VALIDATION_ERROR',
          'PKCE verification failed: code_verifier does not match code_challenge.',
          {
            nextActions: 'Send the code_verifier whose S256 challenge started this sign-in, then start again.',
          },
        );
      }
      const user = await findUserById(deps.sql, spent.userId);
      if (!user) throw new AppError('AUTH_USER_NOT_FOUND');
      return { user, tokens: await sessions.open({ user }, 'oauth') };
    },
  };
}

function notConfigured(key: string) {
  return new AppError('AUTH_OAUTH_CONFIG_NOT_FOUND', `${key} OAuth is not configured.`, {
    nextActions: 'The project admin must configure this provider first.',
  });
}
