// Table administration (admin): POST /api/database/tables, GET|PATCH /api/database/tables/:tableName/schema,
// DELETE /api/database/tables/:tableName.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AUTO_FIELDS, type TableAdminService } from './table-admin.service.js';
import {
  alterTableBody,
  createTableBody,
  tableAltered,
  tableCreated,
  tableDeleted,
  tableParams,
  tableSchema,
} from './table-admin.schemas.js';

const admin = { access: 'admin' as const };
const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];
const tags = ['database'];

export function tableAdminRoutes(tables: TableAdminService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/database/tables', {
      config: admin,
      schema: {
        tags,
        summary: 'Create a table (auto id, created_at, updated_at; row-level security on by default)',
        security,
        body: createTableBody,
        response: { 201: tableCreated },
      },
      handler: async (request, reply) => {
        const created = await tables.create(request.body);
        return reply.code(201).send({
          schemaName: 'public',
          tableName: created.tableName,
          columns: created.columns,
          message: 'Table created successfully',
          autoFields: AUTO_FIELDS,
          nextActions: created.rlsEnabled
            ? `Row-level security is on: only the admin sees rows until you add policies (with a migration). Use /api/database/records/${created.tableName} to read and write.`
            : 'Row-level security is off: every caller with the anon key can read and write this table.',
        });
      },
    });

    app.get('/api/database/tables/:tableName/schema', {
      config: admin,
      schema: {
        tags,
        summary: 'The columns of a table',
        security,
        params: tableParams,
        response: { 200: tableSchema },
      },
      handler: async (request) => tables.schemaOf(request.params.tableName),
    });

    app.patch('/api/database/tables/:tableName/schema', {
      config: admin,
      schema: {
        tags,
        summary: 'Change a table: add, drop, update columns and foreign keys, rename (one transaction)',
        security,
        params: tableParams,
        body: alterTableBody,
        response: { 200: tableAltered },
      },
      handler: async (request) => ({
        message: 'Table schema updated successfully',
        ...(await tables.alter(request.params.tableName, request.body)),
      }),
    });

    app.delete('/api/database/tables/:tableName', {
      config: admin,
      schema: {
        tags,
        summary: 'Drop a table (refused while other objects depend on it)',
        security,
        params: tableParams,
        response: { 200: tableDeleted },
      },
      handler: async (request) => {
        await tables.drop(request.params.tableName);
        return { message: 'Table deleted successfully', tableName: request.params.tableName };
      },
    });
  };
}
