// Registration, profiles, and the admin's user management.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import { isAdmin } from '../../core/principal.js';
import { principalOf } from '../../http/principal.js';
import {
  clientTypeSchema,
  deleteUsersBodySchema,
  deleteUsersResponseSchema,
  listUsersQuerySchema,
  listUsersResponseSchema,
  profileSchema,
  profileUpdateBodySchema,
  registerBodySchema,
  sessionResponseSchema,
  userIdParamsSchema,
  userSchema,
} from './auth.schemas.js';
import type { AuthServices } from './auth-services.js';
import { deliverTokens, USER_REFRESH_COOKIE } from './session-reply.js';

const tags = ['auth'];
const publicAccess = { access: 'public' as const };
const adminOnly = { access: 'admin' as const };
const bearer = [{ bearerAuth: [] }];

export function userRoutes(deps: Deps, auth: AuthServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/auth/users', {
      config: publicAccess,
      schema: {
        tags,
        summary: 'Register a user (public); an admin caller may create users while signups are disabled',
        querystring: clientTypeSchema,
        body: registerBodySchema,
        response: { 200: sessionResponseSchema },
      },
      handler: async (request, reply) => {
        const result = await auth.users.register(request.body, isAdmin(request.principal), request.ip);
        if (!result.tokens) {
          return {
            user: result.user,
            accessToken: null,
            csrfToken: null,
            refreshToken: null,
            requireEmailVerification: result.requireEmailVerification,
          };
        }
        const delivered = deliverTokens(
          reply,
          deps.config,
          USER_REFRESH_COOKIE,
          request.query.client_type,
          result.tokens,
        );
        return { user: result.user, ...delivered, requireEmailVerification: false };
      },
    });

    app.patch('/api/auth/profiles/current', {
      config: { access: 'token' },
      schema: {
        tags,
        summary: "Merge fields into the signed-in user's profile",
        security: bearer,
        body: profileUpdateBodySchema,
        response: { 200: profileSchema },
      },
      handler: async (request) => {
        const principal = principalOf(request);
        if (principal.kind !== 'user') {
          throw new AppError('INSUFFICIENT_PERMISSIONS', 'Only users have a profile.');
        }
        return auth.users.updateProfile(principal.userId, request.body.profile);
      },
    });

    app.get('/api/auth/profiles/:userId', {
      config: publicAccess,
      schema: {
        tags,
        summary: "A user's public profile",
        params: userIdParamsSchema,
        response: { 200: profileSchema },
      },
      handler: (request) => auth.users.publicProfile(request.params.userId),
    });

    app.get('/api/auth/users', {
      config: adminOnly,
      schema: {
        tags,
        summary:
          'List users, newest first, with case-insensitive search on email and name (anonymous=true|false filters)',
        security: bearer,
        querystring: listUsersQuerySchema,
        response: { 200: listUsersResponseSchema },
      },
      handler: async (request) => {
        const { limit, offset, search, anonymous } = request.query;
        const page = await auth.users.listUsers({ limit, offset, search: search || undefined, anonymous });
        return { data: page.data, pagination: { offset, limit, total: page.total } };
      },
    });

    app.get('/api/auth/users/:userId', {
      config: adminOnly,
      schema: {
        tags,
        summary: 'One user',
        security: bearer,
        params: userIdParamsSchema,
        response: { 200: userSchema },
      },
      handler: (request) => auth.users.getUser(request.params.userId),
    });

    app.delete('/api/auth/users', {
      config: adminOnly,
      schema: {
        tags,
        summary: 'Delete users (and end their sessions)',
        security: bearer,
        body: deleteUsersBodySchema,
        response: { 200: deleteUsersResponseSchema },
      },
      handler: async (request) => ({
        message: 'Users deleted successfully',
        deletedCount: await auth.users.deleteUsers(request.body.userIds),
      }),
    });
  };
}
