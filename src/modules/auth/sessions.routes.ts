// Sign-in, refresh, logout and the current session of users.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import { principalOf } from '../../http/principal.js';
import {
  clientTypeSchema,
  currentSessionSchema,
  refreshBodySchema,
  sessionResponseSchema,
  signInBodySchema,
  successSchema,
} from './auth.schemas.js';
import type { AuthServices } from './auth-services.js';
import { refreshFromRequest } from './refresh-request.js';
import {
  bodyRefreshToken,
  clearRefreshCookie,
  deliverTokens,
  readCsrfHeader,
  readRefreshCookie,
  USER_REFRESH_COOKIE,
} from './session-reply.js';

const tags = ['auth'];
const publicAccess = { access: 'public' as const };

export function sessionRoutes(deps: Deps, auth: AuthServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/auth/sessions', {
      config: publicAccess,
      schema: {
        tags,
        summary: 'Sign in with email and password, or with an emailed code (method "otp")',
        querystring: clientTypeSchema,
        body: signInBodySchema,
        response: { 200: sessionResponseSchema },
      },
      handler: async (request, reply) => {
        const body = request.body;
        const { user, tokens } =
          body.method === 'otp'
            ? await auth.email.signInWithCode(body.email, body.otp, body.name, request.ip)
            : await auth.users.signInWithPassword(body.email, body.password, request.ip);
        const delivered = deliverTokens(reply, deps.config, USER_REFRESH_COOKIE, request.query.client_type, tokens);
        return { user, ...delivered };
      },
    });

    app.post('/api/auth/refresh', {
      config: publicAccess,
      schema: {
        tags,
        summary: 'Exchange a refresh token for new tokens (rotates the refresh token)',
        querystring: clientTypeSchema,
        body: refreshBodySchema,
        response: { 200: sessionResponseSchema },
      },
      handler: async (request, reply) => {
        const { refreshed, delivered } = await refreshFromRequest(request, reply, {
          config: deps.config,
          sessions: auth.sessions,
          kind: 'user',
          cookie: USER_REFRESH_COOKIE,
        });
        return { user: refreshed.user!, ...delivered };
      },
    });

    app.post('/api/auth/logout', {
      config: publicAccess,
      schema: {
        tags,
        summary: 'End the session (revokes its refresh token) and clear the refresh cookie',
        querystring: clientTypeSchema,
        body: refreshBodySchema,
        response: { 200: successSchema },
      },
      handler: async (request, reply) => {
        const principal = request.principal;
        await auth.sessions.logout({
          cookie: readRefreshCookie(request, USER_REFRESH_COOKIE),
          csrfToken: readCsrfHeader(request),
          bodyToken: bodyRefreshToken(request.body),
          sessionId: principal?.kind === 'user' ? principal.sessionId : undefined,
        });
        clearRefreshCookie(reply, deps.config, USER_REFRESH_COOKIE);
        return { success: true, message: 'Logged out successfully' };
      },
    });

    app.get('/api/auth/sessions/current', {
      config: { access: 'token' },
      schema: {
        tags,
        summary: 'The signed-in user (or the project admin); never refreshes an expired token',
        security: [{ bearerAuth: [] }],
        response: { 200: currentSessionSchema },
      },
      handler: async (request) => {
        const principal = principalOf(request);
        if (principal.kind === 'user') {
          const user = await auth.users.currentUser(principal.userId, principal.sessionId);
          return { user: { ...user, role: 'authenticated' as const } };
        }
        if (principal.kind === 'admin') {
          return { projectAdmin: { subject: principal.subject, username: principal.subject.replace(/^local:/, '') } };
        }
        throw new AppError('UNAUTHORIZED');
      },
    });
  };
}
