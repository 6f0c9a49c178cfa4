// OAuth sign-in endpoints: initiation, the provider callbacks (GET, and POST form_post), the
// svc_code exchange, and native ID-token sign-in.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { clientTypeSchema, deliverTokens, sessionResponseSchema, USER_REFRESH_COOKIE } from '../auth/index.js';
import type { IdTokenService } from './id-token.service.js';
import type { OAuthService, ProviderRef } from './oauth.service.js';
import {
  authUrlSchema,
  callbackSchema,
  customKeySchema,
  exchangeBodySchema,
  idTokenBodySchema,
  initiateQuerySchema,
  providerSchema,
} from './oauth.schemas.js';

const tags = ['oauth'];
const publicAccess = { access: 'public' as const };
type CallbackParams = z.output<typeof callbackSchema>;

export function oauthRoutes(deps: Deps, oauth: OAuthService, idTokens: IdTokenService): FastifyPluginAsyncZod {
  return async (app) => {
    // Apple answers with response_mode=form_post: the callback arrives as a urlencoded form.
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });

    const initiate = async (ref: ProviderRef, query: z.output<typeof initiateQuerySchema>) => {
      const { redirect_uri, code_challenge, ...hints } = query;
      return { authUrl: await oauth.initiate(ref, redirect_uri, code_challenge, hints) };
    };

    const finish = async (ref: ProviderRef, request: FastifyRequest, params: CallbackParams, reply: FastifyReply) => {
      const location = await oauth.callback(ref, {
        url: new URL(request.url, deps.config.apiBaseUrl),
        code: params.code,
        state: params.state,
        error: params.error,
        errorDescription: params.error_description,
        postedIdToken: params.id_token,
        postedUser: params.user,
      });
      return reply.redirect(location, 302);
    };

    const builtIn = z.object({ provider: providerSchema });
    const custom = z.object({ key: customKeySchema });
    const initiateDoc = {
      tags,
      summary: 'Start OAuth sign-in: the provider URL to send the browser to',
      querystring: initiateQuerySchema,
      response: { 200: authUrlSchema },
    };

    app.get('/api/auth/oauth/:provider', {
      config: publicAccess,
      schema: { ...initiateDoc, params: builtIn },
      handler: (request) => initiate({ kind: 'builtin', provider: request.params.provider }, request.query),
    });
    app.get('/api/auth/oauth/custom/:key', {
      config: publicAccess,
      schema: { ...initiateDoc, params: custom },
      handler: (request) => initiate({ kind: 'custom', key: request.params.key }, request.query),
    });

    const callbackDoc = { tags, summary: "The provider's redirect back: on to the app with svc_code (or error)" };
    app.get('/api/auth/oauth/:provider/callback', {
      config: publicAccess,
      schema: { ...callbackDoc, params: builtIn, querystring: callbackSchema },
      handler: (request, reply) =>
        finish({ kind: 'builtin', provider: request.params.provider }, request, request.query, reply),
    });
    app.post('/api/auth/oauth/:provider/callback', {
      config: publicAccess,
      schema: { ...callbackDoc, params: builtIn, body: callbackSchema },
      handler: (request, reply) =>
        finish({ kind: 'builtin', provider: request.params.provider }, request, request.body, reply),
    });
    app.get('/api/auth/oauth/custom/:key/callback', {
      config: publicAccess,
      schema: { ...callbackDoc, params: custom, querystring: callbackSchema },
      handler: (request, reply) => finish({ kind: 'custom', key: request.params.key }, request, request.query, reply),
    });

    app.post('/api/auth/oauth/exchange', {
      config: publicAccess,
      schema: {
        tags,
        summary: 'Trade svc_code and the PKCE code_verifier for a session (web: refreshToken null, cookie set)',
        querystring: clientTypeSchema,
        body: exchangeBodySchema,
        response: { 200: sessionResponseSchema },
      },
      handler: async (request, reply) => {
        const { user, tokens } = await oauth.exchange(request.body.code, request.body.code_verifier);
        const clientType = request.query.client_type;
        const delivered = deliverTokens(reply, deps.config, USER_REFRESH_COOKIE, clientType, tokens);
        return { user, ...delivered, ...(clientType === 'web' ? { refreshToken: null } : {}) };
      },
    });

    app.post('/api/auth/id-token', {
      config: publicAccess,
      schema: {
        tags,
        summary: 'Sign in with an ID token from a native Google or Apple sign-in',
        querystring: clientTypeSchema,
        body: idTokenBodySchema,
        response: { 200: sessionResponseSchema },
      },
      handler: async (request, reply) => {
        const { user, tokens } = await idTokens.signIn(request.body, request.ip);
        return { user, ...deliverTokens(reply, deps.config, USER_REFRESH_COOKIE, request.query.client_type, tokens) };
      },
    });
  };
}
