// GoTrue's OAuth sign-in over Plinth's OAuth flows: GET /auth/v1/authorize (PKCE only) sends the
// browser to the provider, Plinth's callback sends it back to the app with `?code=`, and
// POST /token?grant_type=pkce trades the code and its verifier for a session.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../../core/errors.js';
import type { Deps } from '../../../deps.js';
import type { AuthServices } from '../../auth/index.js';
import { createOAuthService, isBuiltInProvider, type ProviderRef } from '../../oauth/index.js';
import { authorizeQuerySchema } from './auth.schemas.js';
import { GoTrueError } from './gotrue-errors.js';
import { toGoTrueSession } from './gotrue-shapes.js';

const tags = ['supabase-auth'];

export type PkceExchange = (
  authCode: string | undefined,
  codeVerifier: string | undefined,
) => Promise<ReturnType<typeof toGoTrueSession>>;

const refOf = (provider: string): ProviderRef =>
  isBuiltInProvider(provider) ? { kind: 'builtin', provider } : { kind: 'custom', key: provider };

export function createOAuthAdapter(deps: Deps, auth: AuthServices) {
  const oauth = createOAuthService(deps, auth.sessions);

  const exchange: PkceExchange = async (authCode, codeVerifier) => {
    if (!authCode || !codeVerifier) {
      throw new GoTrueError(400, 'validation_failed', 'auth_code and code_verifier are required');
    }
    try {
      const session = await oauth.exchange(authCode, codeVerifier);
      return toGoTrueSession(session, deps.config.accessTokenTtlSeconds, deps.clock);
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
      if (err.message.startsWith('PKCE'))
        throw new GoTrueError(403, 'bad_code_verifier', 'code challenge does not match previously saved code verifier');
      throw new GoTrueError(404, 'flow_state_not_found', 'invalid flow state, no valid flow state found');
    }
  };

  const routes: FastifyPluginAsyncZod = async (app) => {
    app.get('/authorize', {
      // A browser navigates here, with no key.
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Start OAuth sign-in (PKCE): redirects to the provider',
        querystring: authorizeQuerySchema,
      },
      handler: async (request, reply) => {
        // `scopes` is ignored: the provider's configuration in Plinth decides them.
        const { provider, redirect_to, code_challenge, code_challenge_method } = request.query;
        if (!code_challenge || code_challenge_method?.toLowerCase() !== 's256') {
          throw new GoTrueError(
            400,
            'validation_failed',
            'Only the PKCE flow with code_challenge_method=s256 is supported (createClient(..., { auth: { flowType: "pkce" } })).',
          );
        }
        if (!redirect_to) throw new GoTrueError(400, 'validation_failed', 'redirect_to is required.');
        const url = await oauth.initiate(refOf(provider), redirect_to, code_challenge, {}, { wire: 'supabase' });
        return reply.redirect(url, 302);
      },
    });
  };

  return { exchange, routes };
}
