// /api/database/migrations: the applied history, applying a migration, and a dry run (admin).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { MigrationsService } from './migrations.service.js';
import {
  dryRunBody,
  dryRunResult,
  migrationCreated,
  migrationHistory,
  migrationsForgotten,
  newMigrationBody,
} from './migrations.schemas.js';

const admin = { access: 'admin' as const };
const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];

export function migrationsRoutes(migrations: MigrationsService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get('/api/database/migrations', {
      config: admin,
      schema: {
        tags: ['database'],
        summary: 'Applied migrations, newest first',
        security,
        response: { 200: migrationHistory },
      },
      handler: async () => ({ migrations: await migrations.list() }),
    });

    app.post('/api/database/migrations', {
      config: admin,
      schema: {
        tags: ['database'],
        summary: 'Apply a migration (one transaction; recorded only if all its SQL succeeds)',
        security,
        body: newMigrationBody,
        response: { 201: migrationCreated },
      },
      handler: async (request, reply) => {
        const applied = await migrations.apply(request.body);
        return reply.code(201).send({ ...applied, message: 'Migration executed successfully' });
      },
    });

    app.delete('/api/database/migrations', {
      config: admin,
      schema: {
        tags: ['database'],
        summary:
          'Forget the applied-migration history (tables stay); `plinth db reset` uses it after dropping the schema',
        security,
        response: { 200: migrationsForgotten },
      },
      handler: async () => {
        const forgotten = await migrations.forget();
        return { message: 'Migration history cleared', forgotten };
      },
    });

    app.post('/api/database/migrations/dry-run', {
      config: admin,
      schema: {
        tags: ['database'],
        summary:
          'Run SQL in a transaction that is always rolled back; report statements and risks (30 per 15 minutes per IP)',
        security,
        body: dryRunBody,
        response: { 200: dryRunResult },
      },
      handler: async (request) => migrations.dryRun(request.body.sql),
    });
  };
}
