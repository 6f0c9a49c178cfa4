// Wires the agent docs module: the /api/docs routes over the Markdown files in docs/agents/.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { docsRoutes } from './docs.routes.js';
import { createDocsService } from './docs.service.js';

export function docsPlugin(): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(docsRoutes(createDocsService()));
  };
}
