// A user's identities: the signed-in user lists and unlinks its own; the admin lists any user's.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../core/errors.js';
import { principalOf } from '../../http/principal.js';
import { userIdParamsSchema } from './auth.schemas.js';
import type { AuthServices } from './auth-services.js';
import { identitiesResponseSchema, identityParamsSchema } from './identities.schemas.js';

const tags = ['auth'];
const bearer = [{ bearerAuth: [] }];

/** The user a user-only route acts for; the project admin has no identities of its own. */
export function signedInUser(request: FastifyRequest) {
  const principal = principalOf(request);
  if (principal.kind !== 'user') {
    throw new AppError('INSUFFICIENT_PERMISSIONS', 'Only a signed-in user has identities.', {
      nextActions:
        "Sign in as the user; the admin reads a user's identities at GET /api/auth/users/{userId}/identities.",
    });
  }
  return principal;
}

export function identityRoutes(auth: AuthServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/auth/identities', {
      config: { access: 'token' },
      schema: {
        tags,
        summary: "The signed-in user's identities (password, email codes, OAuth, SSO, passkeys)",
        security: bearer,
        response: { 200: identitiesResponseSchema },
      },
      handler: async (request) => ({ data: await auth.identities.list(signedInUser(request).userId) }),
    });

    app.delete('/api/auth/identities/:identityId', {
      config: { access: 'token' },
      schema: {
        tags,
        summary: 'Unlink one of your identities; the last sign-in method cannot be unlinked (409)',
        security: bearer,
        params: identityParamsSchema,
        response: { 200: identitiesResponseSchema },
      },
      handler: async (request) => ({
        data: await auth.identities.unlink(signedInUser(request).userId, request.params.identityId),
      }),
    });

    app.get('/api/auth/users/:userId/identities', {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: "A user's identities (the admin's view)",
        security: bearer,
        params: userIdParamsSchema,
        response: { 200: identitiesResponseSchema },
      },
      handler: async (request) => {
        await auth.users.getUser(request.params.userId);
        return { data: await auth.identities.list(request.params.userId) };
      },
    });
  };
}
