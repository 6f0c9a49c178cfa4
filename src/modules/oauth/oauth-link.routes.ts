// The OAuth link flow: a signed-in user links a provider account to itself (PKCE, as sign-in).
// Start: the provider URL; the provider comes back to the usual callback, which sends the app a
// svc_code; the app spends it here with its code_verifier and the same user's access token.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from '../../core/errors.js';
import { principalOf } from '../../http/principal.js';
import { linkedResponseSchema } from '../auth/index.js';
import type { OAuthService, ProviderRef } from './oauth.service.js';
import {
  authUrlSchema,
  customKeySchema,
  exchangeBodySchema,
  initiateQuerySchema,
  providerSchema,
} from './oauth.schemas.js';

const tags = ['oauth'];
const token = { access: 'token' as const };
const security = [{ bearerAuth: [] }];

function signedInUser(request: FastifyRequest) {
  const principal = principalOf(request);
  if (principal.kind !== 'user') {
    throw new AppError('INSUFFICIENT_PERMISSIONS', 'Only a signed-in user links identities.', {
      nextActions: 'Sign in as the user first.',
    });
  }
  return principal;
}

export function oauthLinkRoutes(oauth: OAuthService): FastifyPluginAsyncZod {
  return async (app) => {
    const start = async (request: FastifyRequest, ref: ProviderRef, query: z.output<typeof initiateQuerySchema>) => {
      const { userId } = signedInUser(request);
      const { redirect_uri, code_challenge, ...hints } = query;
      return { authUrl: await oauth.initiate(ref, redirect_uri, code_challenge, hints, { linkUserId: userId }) };
    };
    const startDoc = {
      tags,
      summary: 'Start linking a provider account to the signed-in user: the provider URL (PKCE)',
      security,
      querystring: initiateQuerySchema,
      response: { 200: authUrlSchema },
    };

    app.get('/api/auth/identities/oauth/:provider', {
      config: token,
      schema: { ...startDoc, params: z.object({ provider: providerSchema }) },
      handler: (request) => start(request, { kind: 'builtin', provider: request.params.provider }, request.query),
    });
    app.get('/api/auth/identities/oauth/custom/:key', {
      config: token,
      schema: { ...startDoc, params: z.object({ key: customKeySchema }) },
      handler: (request) => start(request, { kind: 'custom', key: request.params.key }, request.query),
    });

    app.post('/api/auth/identities/oauth/exchange', {
      config: token,
      schema: {
        tags,
        summary: "Finish a link: the svc_code and code_verifier, with the same user's access token",
        security,
        body: exchangeBodySchema,
        response: { 200: linkedResponseSchema },
      },
      handler: (request) => {
        const { userId, sessionId } = signedInUser(request);
        return oauth.linkExchange(request.body.code, request.body.code_verifier, userId, sessionId);
      },
    });
  };
}
