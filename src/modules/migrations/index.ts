// The database administration module's face: its plugin, and the catalog reads and schemas the
// metadata module builds its table descriptions from.
export { migrationsPlugin } from './migrations.plugin.js';
export { databaseSize, tableCounts } from './database-metadata.repo.js';
export { listIndexes, listPolicies, listTriggers } from './database-objects.repo.js';
export { indexInfo, policyInfo, triggerInfo } from './database-objects.routes.js';
export { columnInfo, tableParams } from './table-admin.schemas.js';
export { tableNotFound } from './table-admin.service.js';
export { readTableSchema } from './table-schema.repo.js';
