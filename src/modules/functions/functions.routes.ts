// The functions management API (admin): list with the runtime's status, read, create, update,
// delete. Writes deploy to the runtime before they answer.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  createFunctionBody,
  deleteResponse,
  functionDetail,
  listResponse,
  slugParams,
  updateFunctionBody,
  writeResponse,
} from './functions.schemas.js';
import type { FunctionsService } from './functions.service.js';

const tags = ['functions'];
const admin = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];

export function functionsRoutes(functions: FunctionsService): FastifyPluginAsyncZod {
  return async (app) => {
    // Admin-only writes: never limited per IP (api-contract Part A item 16).
    const limited = { config: admin };
    app.get('/api/functions', {
      config: admin,
      schema: { tags, summary: 'Functions and the runtime status', security, response: { 200: listResponse } },
      handler: async () => ({
        functions: await functions.list(),
        runtime: {
          status: functions.runtimeRunning() ? ('running' as const) : ('unavailable' as const),
        },
        deploymentUrl: null,
      }),
    });

    app.get('/api/functions/:slug', {
      config: admin,
      schema: {
        tags,
        summary: 'One function, with its code',
        security,
        params: slugParams,
        response: { 200: functionDetail },
      },
      handler: (request) => functions.get(request.params.slug),
    });

    app.post('/api/functions', {
      ...limited,
      schema: {
        tags,
        summary: 'Create and deploy a function',
        security,
        body: createFunctionBody,
        response: { 201: writeResponse },
      },
      handler: async (request, reply) => {
        const { row, deployment } = await functions.create({
          ...request.body,
          description: request.body.description ?? null,
        });
        return reply.code(201).send({ success: true, function: row, deployment });
      },
    });

    app.put('/api/functions/:slug', {
      ...limited,
      schema: {
        tags,
        summary: 'Update and redeploy a function',
        security,
        params: slugParams,
        body: updateFunctionBody,
        response: { 200: writeResponse },
      },
      handler: async (request) => {
        const { row, deployment } = await functions.update(request.params.slug, request.body);
        return { success: true, function: row, deployment };
      },
    });

    app.delete('/api/functions/:slug', {
      ...limited,
      schema: {
        tags,
        summary: 'Delete a function permanently',
        security,
        params: slugParams,
        response: { 200: deleteResponse },
      },
      handler: async (request) => {
        await functions.remove(request.params.slug);
        return { success: true, message: `Function ${request.params.slug} deleted successfully` };
      },
    });
  };
}
