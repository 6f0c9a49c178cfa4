// The admin's view of a user's sessions: list the live ones, end one, or end them all (the user's
// refresh token stops working and their access tokens are refused at once).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  revokedSessionsResponseSchema,
  userIdParamsSchema,
  userSessionParamsSchema,
  userSessionsResponseSchema,
} from './auth.schemas.js';
import type { AuthServices } from './auth-services.js';

const tags = ['auth'];
const adminOnly = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];

const revoked = (revokedCount: number) => ({
  success: true,
  message: `${revokedCount} session${revokedCount === 1 ? '' : 's'} revoked`,
  revokedCount,
});

export function userSessionRoutes(auth: AuthServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/auth/users/:userId/sessions', {
      config: adminOnly,
      schema: {
        tags,
        summary: "A user's live sessions, newest first",
        security,
        params: userIdParamsSchema,
        response: { 200: userSessionsResponseSchema },
      },
      handler: async (request) => ({ data: await auth.users.listSessions(request.params.userId) }),
    });

    app.delete('/api/auth/users/:userId/sessions/:sessionId', {
      config: adminOnly,
      schema: {
        tags,
        summary: "End one of a user's sessions",
        security,
        params: userSessionParamsSchema,
        response: { 200: revokedSessionsResponseSchema },
      },
      handler: async (request) =>
        revoked(await auth.users.revokeSessions(request.params.userId, request.params.sessionId)),
    });

    app.delete('/api/auth/users/:userId/sessions', {
      config: adminOnly,
      schema: {
        tags,
        summary: 'End every session of a user',
        security,
        params: userIdParamsSchema,
        response: { 200: revokedSessionsResponseSchema },
      },
      handler: async (request) => revoked(await auth.users.revokeSessions(request.params.userId, null)),
    });
  };
}
