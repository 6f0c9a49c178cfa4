// /api/realtime/watched-tables: admin start, stop and list of table change events.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { tableParams, watchedTableSchema, watchTableSchema } from './watched-tables.schemas.js';
import type { WatchedTablesService } from './watched-tables.service.js';

const tags = ['realtime'];
const config = { access: 'admin' as const };
const security = [{ bearerAuth: [] }];

export function watchedTablesRoutes(watched: WatchedTablesService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/realtime/watched-tables', {
      config,
      schema: {
        tags,
        summary: 'Tables whose row changes are published',
        security,
        response: { 200: z.array(watchedTableSchema) },
      },
      handler: () => watched.list(),
    });

    app.post('/api/realtime/watched-tables', {
      config,
      schema: {
        tags,
        summary: 'Publish the row changes of a table (installs the trigger and opens its channels)',
        security,
        body: watchTableSchema,
        response: { 201: watchedTableSchema },
      },
      handler: async (request, reply) => reply.code(201).send(await watched.watch(request.body.table)),
    });

    app.delete('/api/realtime/watched-tables/:table', {
      config,
      schema: {
        tags,
        summary: 'Stop publishing the row changes of a table',
        security,
        params: tableParams,
        response: { 200: z.object({ message: z.string() }) },
      },
      handler: (request) => watched.unwatch(request.params.table),
    });
  };
}
