// The project admin's sessions: sign-in, current session, refresh (own cookie) and logout.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../core/errors.js';
import type { Deps } from '../../deps.js';
import { principalOf } from '../../http/principal.js';
import {
  adminSessionResponseSchema,
  adminSignInBodySchema,
  clientTypeSchema,
  refreshBodySchema,
  successSchema,
} from './auth.schemas.js';
import type { AuthServices } from './auth-services.js';
import { sentByThisOrigin } from './csrf-proof.js';
import { refreshFromRequest } from './refresh-request.js';
import {
  ADMIN_REFRESH_COOKIE,
  bodyRefreshToken,
  clearRefreshCookie,
  deliverTokens,
  readCsrfHeader,
  readRefreshCookie,
} from './session-reply.js';
import { z } from 'zod';

const tags = ['admin'];
const publicAccess = { access: 'public' as const };

export function adminSessionRoutes(deps: Deps, auth: AuthServices): FastifyPluginAsyncZod {
  const projectAdmin = (subject: string) => ({ subject, username: subject.replace(/^local:/, '') });

  return async (app) => {
    app.post('/api/auth/admin/sessions', {
      config: publicAccess,
      schema: {
        tags,
        summary: 'Sign in as the project admin',
        querystring: clientTypeSchema,
        body: adminSignInBodySchema,
        response: { 200: adminSessionResponseSchema },
      },
      handler: async (request, reply) => {
        const email = (request.body.email ?? request.body.username)!;
        const tokens = await auth.admin.signIn(email, request.body.password, request.ip, request.body.totpCode);
        const delivered = deliverTokens(reply, deps.config, ADMIN_REFRESH_COOKIE, request.query.client_type, tokens);
        return { projectAdmin: projectAdmin(auth.admin.subject), ...delivered };
      },
    });

    app.get('/api/auth/admin/sessions/current', {
      config: { access: 'token' },
      schema: {
        tags,
        summary: 'The signed-in project admin',
        security: [{ bearerAuth: [] }],
        response: { 200: z.object({ projectAdmin: z.object({ subject: z.string(), username: z.string() }) }) },
      },
      handler: async (request) => {
        const principal = principalOf(request);
        if (principal.kind !== 'admin') throw new AppError('INSUFFICIENT_PERMISSIONS');
        return { projectAdmin: projectAdmin(principal.subject) };
      },
    });

    app.post('/api/auth/admin/refresh', {
      config: publicAccess,
      schema: {
        tags,
        summary:
          'Refresh the admin session (svc_admin_refresh_token cookie + X-CSRF-Token, or a browser request from this origin)',
        querystring: clientTypeSchema,
        body: refreshBodySchema,
        response: { 200: adminSessionResponseSchema },
      },
      handler: async (request, reply) => {
        const { refreshed, delivered } = await refreshFromRequest(request, reply, {
          config: deps.config,
          sessions: auth.sessions,
          kind: 'admin',
          cookie: ADMIN_REFRESH_COOKIE,
          sameOriginProvesIntent: true,
          accept: ({ adminSubject }) => {
            if (!adminSubject || !auth.admin.isCurrentSubject(adminSubject)) {
              throw new AppError('UNAUTHORIZED', 'The admin account of this session no longer exists.');
            }
          },
        });
        return { projectAdmin: projectAdmin(refreshed.adminSubject!), ...delivered };
      },
    });

    app.post('/api/auth/admin/logout', {
      config: publicAccess,
      schema: { tags, summary: 'End the admin session', body: refreshBodySchema, response: { 200: successSchema } },
      handler: async (request, reply) => {
        const principal = request.principal;
        await auth.sessions.logout({
          cookie: readRefreshCookie(request, ADMIN_REFRESH_COOKIE),
          csrfToken: readCsrfHeader(request),
          sameOrigin: sentByThisOrigin(request),
          bodyToken: bodyRefreshToken(request.body),
          sessionId: principal?.kind === 'admin' && principal.via === 'token' ? principal.sessionId : undefined,
        });
        clearRefreshCookie(reply, deps.config, ADMIN_REFRESH_COOKIE);
        return { success: true, message: 'Logged out successfully' };
      },
    });
  };
}
