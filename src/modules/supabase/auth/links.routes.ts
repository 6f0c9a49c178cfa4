// GoTrue's email links: admin generate_link and invite (service_role key), and GET /verify, the
// link a user clicks in the email (no key: a browser follows it), which redirects to the app.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  generateLinkBodySchema,
  inviteBodySchema,
  redirectQuerySchema,
  verifyLinkQuerySchema,
} from './auth.schemas.js';
import type { GoTrueLinks } from './gotrue-links.service.js';

const tags = ['supabase-auth'];
const adminOnly = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];

export function linkRoutes(links: GoTrueLinks): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/admin/generate_link', {
      config: adminOnly,
      schema: {
        tags,
        security,
        summary: 'A signup, magiclink, invite or recovery link and code for an address (sends no email)',
        querystring: redirectQuerySchema,
        body: generateLinkBodySchema,
      },
      handler: (request) => links.generateLink(request.body, request.query.redirect_to),
    });

    app.post('/invite', {
      config: adminOnly,
      schema: {
        tags,
        security,
        summary: 'Invite a user by email: creates the user and emails the invitation link',
        querystring: redirectQuerySchema,
        body: inviteBodySchema,
      },
      handler: (request) => links.invite(request.body, request.query.redirect_to),
    });

    app.get('/verify', {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'The emailed link: spends it and redirects to redirect_to with the session in the fragment',
        querystring: verifyLinkQuerySchema,
      },
      handler: async (request, reply) => reply.redirect(await links.verifyLink(request.query, request.ip), 303),
    });
  };
}
