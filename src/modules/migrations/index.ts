// The database administration module's face: its plugin, and the catalog reads and schemas the
// metadata module builds its overview and table descriptions from.
export { migrationsPlugin } from './migrations.plugin.js';
export { databaseSummary, describeTable } from './database-catalog.service.js';
export { indexInfo, policyInfo, triggerInfo } from './database-objects.schemas.js';
export { columnInfo, tableParams } from './table-admin.schemas.js';
// The admin SQL guard, which a backup's restore applies to the SQL of an unsigned archive.
export { findViolations, splitStatements } from './sql-guard.js';
