// GoTrue's admin user routes under /auth/v1/admin (service_role key = Plinth's API key, or an
// admin token): create, list (page, per_page, X-Total-Count and Link), get, update, delete.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Config } from '../../../config.js';
import {
  adminCreateUserBodySchema,
  adminUpdateUserBodySchema,
  listUsersQuerySchema,
  userIdParamsSchema,
} from './auth.schemas.js';
import type { GoTrueAdmin } from './gotrue-admin.service.js';
import { paginationLink } from './gotrue-shapes.js';

const tags = ['supabase-auth'];
const adminOnly = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];

export function adminRoutes(config: Config, admin: GoTrueAdmin): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/admin/users', {
      config: adminOnly,
      schema: {
        tags,
        summary: 'Create a user (email_confirm marks the email verified)',
        security,
        body: adminCreateUserBodySchema,
      },
      handler: (request) => admin.createUser(request.body, request.ip),
    });

    app.get('/admin/users', {
      config: adminOnly,
      schema: { tags, summary: 'One page of users, newest first', security, querystring: listUsersQuerySchema },
      handler: async (request, reply) => {
        const { page, per_page } = request.query;
        const { total, ...body } = await admin.listUsers(page, per_page);
        reply.header('x-total-count', String(total));
        reply.header('link', paginationLink(config.apiBaseUrl, page, per_page, total));
        return body;
      },
    });

    app.get('/admin/users/:id', {
      config: adminOnly,
      schema: { tags, summary: 'One user', security, params: userIdParamsSchema },
      handler: (request) => admin.getUser(request.params.id),
    });

    app.put('/admin/users/:id', {
      config: adminOnly,
      schema: {
        tags,
        summary: 'Update user_metadata or the password (ends the user’s sessions)',
        security,
        params: userIdParamsSchema,
        body: adminUpdateUserBodySchema,
      },
      handler: (request) => admin.updateUser(request.params.id, request.body),
    });

    app.delete('/admin/users/:id', {
      config: adminOnly,
      schema: { tags, summary: 'Delete a user (and end their sessions)', security, params: userIdParamsSchema },
      handler: (request) => admin.deleteUser(request.params.id),
    });
  };
}
