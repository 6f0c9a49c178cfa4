// The web console's HTTP face: `/` redirects to /dashboard, and /dashboard/* serves the built
// single-page app (files by name, index.html for client routes); 503 when it was never built.
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../core/errors.js';
import { cacheControlFor, fileFor, isBuilt } from './dashboard.files.js';
import { DASHBOARD_HEADERS } from './dashboard.headers.js';
import { CONSOLE_ROUTES } from './dashboard.paths.js';

const notBuilt = () =>
  new AppError('SERVICE_UNAVAILABLE', 'The dashboard has not been built in this checkout.', {
    nextActions: 'Run `npm run build` (npm install runs it), then reload /dashboard.',
  });

export function dashboardRoutes(root: string): FastifyPluginAsyncZod {
  return async (app) => {
    const schema = { hide: true };
    const publicAccess = { access: 'public' as const };
    // Every answer of this plugin (files, the redirect, a 503), before anything else may fail.
    app.addHook('onRequest', async (_request, reply) => {
      reply.headers(DASHBOARD_HEADERS);
    });

    const [redirect, page, files] = CONSOLE_ROUTES;
    app.get(redirect, { config: publicAccess, schema }, async (_request, reply) => reply.redirect('/dashboard/', 302));

    const serve = async (requested: string, reply: FastifyReply) => {
      if (!isBuilt(root)) throw notBuilt();
      const file = fileFor(root, requested);
      return reply.header('cache-control', cacheControlFor(file)).sendFile(file, root, { cacheControl: false });
    };

    app.get(page, { config: publicAccess, schema }, (_request, reply) => serve('', reply));
    app.get<{ Params: { '*': string } }>(files, { config: publicAccess, schema }, (request, reply) =>
      serve(request.params['*'], reply),
    );
  };
}
