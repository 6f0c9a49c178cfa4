// POST /auth/v1/sso (supabase-js signInWithSSO) over Plinth's SAML sign-in: the identity
// provider's URL (JSON with skip_http_redirect, else a 303); the ACS then sends the browser to
// redirect_to?code=… for exchangeCodeForSession. PKCE only, like /authorize.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../../core/errors.js';
import type { SamlSignInService } from '../../sso/index.js';
import { ssoBodySchema } from './auth.schemas.js';
import { GoTrueError } from './gotrue-errors.js';

const tags = ['supabase-auth'];
const security = [{ bearerAuth: [] }];

export function ssoRoutes(saml: SamlSignInService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/sso', {
      config: { access: 'client' },
      schema: {
        tags,
        security,
        summary: "Start SAML sign-in by email domain or provider id: the identity provider's URL",
        body: ssoBodySchema,
      },
      handler: async (request, reply) => {
        const body = request.body;
        if (!body.domain === !body.provider_id) {
          throw new GoTrueError(400, 'validation_failed', 'Only one of provider_id or domain is accepted.');
        }
        if (!body.code_challenge || (body.code_challenge_method ?? 's256').toLowerCase() !== 's256') {
          throw new GoTrueError(
            400,
            'validation_failed',
            'SSO needs PKCE with S256 (createClient with flowType: "pkce").',
          );
        }
        if (!body.redirect_to) throw new GoTrueError(400, 'validation_failed', 'redirect_to is required.');
        let url: string;
        try {
          ({ url } = await saml.start({
            ...(body.domain ? { domain: body.domain.toLowerCase() } : { providerId: body.provider_id! }),
            redirectUri: body.redirect_to,
            codeChallenge: body.code_challenge,
            wire: 'supabase',
          }));
        } catch (err) {
          if (err instanceof AppError && err.code === 'NOT_FOUND') {
            throw new GoTrueError(404, 'sso_provider_not_found', 'No SSO provider assigned for this domain');
          }
          throw err;
        }
        if (body.skip_http_redirect) return { url };
        return reply.redirect(url, 303);
      },
    });
  };
}
