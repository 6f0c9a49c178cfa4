// /api/database/snippets: the SQL editor's saved snippets (admin), listed, saved, changed and deleted.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../http/principal.js';
import {
  snippetBody,
  snippetChange,
  snippetDeleted,
  snippetList,
  snippetParams,
  snippetSchema,
} from './sql-snippets.schemas.js';
import type { SqlSnippetsService } from './sql-snippets.service.js';

const admin = { access: 'admin' as const };
const tags = ['database'];
const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];

export function sqlSnippetsRoutes(snippets: SqlSnippetsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/database/snippets', {
      config: admin,
      schema: { tags, summary: 'Saved SQL snippets, by name', security, response: { 200: snippetList } },
      handler: async () => ({ snippets: await snippets.list() }),
    });

    app.post('/api/database/snippets', {
      config: admin,
      schema: {
        tags,
        summary: 'Save a SQL snippet (names are unique)',
        security,
        body: snippetBody,
        response: { 201: snippetSchema },
      },
      handler: async (request, reply) => {
        const principal = principalOf(request);
        const createdBy = principal.kind === 'admin' ? principal.subject : principal.kind;
        return reply.code(201).send(await snippets.save(request.body, createdBy));
      },
    });

    app.patch('/api/database/snippets/:id', {
      config: admin,
      schema: {
        tags,
        summary: 'Rename a saved SQL snippet or change its SQL',
        security,
        params: snippetParams,
        body: snippetChange,
        response: { 200: snippetSchema },
      },
      handler: (request) => snippets.change(request.params.id, request.body),
    });

    app.delete('/api/database/snippets/:id', {
      config: admin,
      schema: {
        tags,
        summary: 'Delete a saved SQL snippet',
        security,
        params: snippetParams,
        response: { 200: snippetDeleted },
      },
      handler: (request) => snippets.remove(request.params.id),
    });
  };
}
