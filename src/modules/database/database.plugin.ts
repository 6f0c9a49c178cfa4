// Registers the database administration routes: admin SQL, table administration, catalog reads,
// export, bulk upserts from files and the SQL editor's saved snippets.
// `refreshSchema` reloads the records API's schema cache after DDL.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../../deps.js';
import { bulkUpsertRoutes } from './bulk-upsert.routes.js';
import { createBulkUpsertService } from './bulk-upsert.service.js';
import { createDatabaseCatalogService } from './database-catalog.service.js';
import { databaseMetadataRoutes } from './database-metadata.routes.js';
import { databaseObjectsRoutes } from './database-objects.routes.js';
import { exportRoutes } from './export.routes.js';
import { createExportService } from './export.service.js';
import { rawSqlRoutes } from './raw-sql.routes.js';
import { createRawSqlService } from './raw-sql.service.js';
import { sqlSnippetsRoutes } from './sql-snippets.routes.js';
import { createSqlSnippetsService } from './sql-snippets.service.js';
import { tableAdminRoutes } from './table-admin.routes.js';
import { createTableAdminService } from './table-admin.service.js';

export function databasePlugin(deps: Deps, refreshSchema: () => Promise<unknown>): FastifyPluginAsyncZod {
  const catalog = createDatabaseCatalogService(deps);
  return async (app) => {
    await app.register(rawSqlRoutes(createRawSqlService(deps, refreshSchema)));
    await app.register(databaseMetadataRoutes(catalog));
    await app.register(tableAdminRoutes(createTableAdminService(deps, refreshSchema)));
    await app.register(databaseObjectsRoutes(catalog));
    await app.register(exportRoutes(createExportService(deps)));
    await app.register(sqlSnippetsRoutes(createSqlSnippetsService(deps)));
    await app.register(bulkUpsertRoutes(createBulkUpsertService(deps), deps.config.storage.maxFileSizeBytes));
  };
}
