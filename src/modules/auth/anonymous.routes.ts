// Anonymous users: signing in as one, converting one with an email and password, and the admin's
// run-now of the cleanup of inactive ones (the scheduled job does the same every hour).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { clientTypeSchema, sessionResponseSchema } from './auth.schemas.js';
import type { AuthServices } from './auth-services.js';
import { addEmailPasswordBodySchema, cleanupResponseSchema, convertedResponseSchema } from './identities.schemas.js';
import { signedInUser } from './identities.routes.js';
import { deliverTokens, USER_REFRESH_COOKIE } from './session-reply.js';

const tags = ['auth'];
const bearer = [{ bearerAuth: [] }];

export function anonymousRoutes(deps: Deps, auth: AuthServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/auth/anonymous', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Sign in as a new anonymous user (when the admin enabled it); limited per IP',
        querystring: clientTypeSchema,
        response: { 200: sessionResponseSchema },
      },
      handler: async (request, reply) => {
        const { user, tokens } = await auth.anonymous.signIn(request.ip);
        return { user, ...deliverTokens(reply, deps.config, USER_REFRESH_COOKIE, request.query.client_type, tokens) };
      },
    });

    app.post('/api/auth/identities/email', {
      config: { access: 'token' },
      schema: {
        tags,
        summary: 'Add an email and password to the signed-in anonymous user (same id and data)',
        security: bearer,
        body: addEmailPasswordBodySchema,
        response: { 200: convertedResponseSchema },
      },
      handler: (request) => {
        const principal = signedInUser(request);
        return auth.anonymous.addEmailPassword(principal.userId, principal.sessionId, request.body);
      },
    });

    app.post('/api/auth/anonymous/cleanup', {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Remove now the anonymous users inactive for longer than the retention (anonymousRetentionDays)',
        security: bearer,
        response: { 200: cleanupResponseSchema },
      },
      handler: () => auth.anonymous.removeInactive(),
    });
  };
}
